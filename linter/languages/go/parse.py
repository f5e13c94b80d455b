"""Go source -> `CodeFacts`, with tree-sitter's Go grammar (no Go toolchain needed).

The same facts as for Python (code/facts.py), read from Go's own idioms: `grpc.Dial`,
`grpc.DialContext` and `grpc.NewClient` channels with their dial options; `grpc.NewServer`
(or grpc/xds's `NewGRPCServer`, whose clients balance each call) with
`grpc.KeepaliveParams(keepalive.ServerParameters{...})` (durations kept in milliseconds
under gRPC's core option names, so the rules read one vocabulary), started with `Serve`,
stopped with `GracefulStop` or `Stop`; `signal.Notify`/`NotifyContext` for SIGTERM;
`http.Transport`/`http.Client` literals; `sql.Open` pools and their `SetConnMaxLifetime`
(sqlx's `Open`/`Connect` pools too: a `sql.DB` inside; GORM's `gorm.Open` over a driver's
`Open(dsn)`, and GORM v1's `gorm.Open(dialect, dsn)`, its pool reached by `db.DB()`); the gRPC
health server; HTTP routes (parse_routes.py).

Names are followed through imports (aliases and dot-imports), package constants and
variables, local `:=` and `=` bindings, `os.Getenv`/`os.LookupEnv` with the default set
under `if x == ""` / `if !ok`, `fmt.Sprintf`, string concatenation and duration
arithmetic (`5 * time.Minute`). What cannot be followed is unknown, never missing.
Test files (`_test.go`), generated files (`// Code generated ... DO NOT EDIT.`) and
`vendor/` are not reported.
"""

from __future__ import annotations

import math
import os
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import accumulate
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

from k8slb.code.budget import MAX_CHOICES, MAX_DEPTH, MAX_NESTING, MAX_STEPS, Budget
from k8slb.code.facts import (
    ASSIGNED_FIELDS,
    DEFAULT_SCHEME,
    FIELD_SOURCES,
    FIELD_SOURCES_CUT,
    HANDED_SERVERS,
    HANDLER_PARAMETERS,
    IN_MEMORY,
    SERVED_PARAMETERS,
    UNKNOWN,
    VIPER_ENVIRONMENT,
    Channel,
    CodeFacts,
    DbPool,
    EnvRef,
    EnvText,
    FieldNetwork,
    FlagRef,
    HealthServicer,
    Helper,
    HttpClient,
    Joined,
    Listen,
    ListenerOf,
    Loc,
    Option,
    Options,
    PackageEnv,
    PackageField,
    PackageValue,
    Passed,
    Registration,
    RegistryDial,
    Server,
    SettingsKey,
    Stop,
    StructField,
    Unknown,
    ViperKey,
    Wait,
    add_kept,
    carried_url,
    choices,
    joined,
    leading_text,
    listen_head,
    one_of,
    or_empty,
    registry_scheme,
    settled,
    stand_in_name,
)
from k8slb.code.syntax_trees import (
    captured,
    captured_unordered,
    graded,
    not_analysed,
    parse_too_long,
    parsed,
    same_code,
    syntax_problem,
    too_deep,
    walk,
)
from k8slb.code.syntax_trees import node_text as _text
from k8slb.core import regex
from k8slb.core.findings import Problem
from k8slb.languages.go.parse_callers import import_names, read_callers, serving_spans
from k8slb.languages.go.parse_cli_flags import (
    CLI_PACKAGES,
    COBRA,
    action_literal,
    actions,
    cli_flags,
    cli_names,
    flag_read,
    read_value,
)
from k8slb.languages.go.parse_closers import Closers, literal_holders
from k8slb.languages.go.parse_connect import connect_servers
from k8slb.languages.go.parse_http_serve import HttpServes, served_parameters
from k8slb.languages.go.parse_late_handlers import ServesBefore
from k8slb.languages.go.parse_routes import collect_routes
from k8slb.languages.go.parse_shutdown import (
    drain_pauses,
    main_tails,
    signal_exits,
    signal_pauses,
)
from k8slb.reading.markers import comment_markers, comment_pattern

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

# Import paths one of which a file must name to be worth a syntax tree (a byte pre-check).
WATCHED = (
    b"google.golang.org/grpc",
    b"net/http",
    b"database/sql",
    b"jmoiron/sqlx",
    b"gorm.io/gorm",
    b"jinzhu/gorm",
    b"jackc/pgx",
    b"SetConnMaxLifetime",  # a pool's lifetime set where a helper of another file opens it
    b"os/signal",
    # service registries' clients and resolvers (REGISTRY_CLIENTS, REGISTRY_RESOLVERS)
    b"consul",
    b"etcd/client/v3/naming",
    b'/zk"',
    b"hudl/fargo",
    b"nacos-sdk-go",
    # a program's entry: it hands the packages it runs their addresses (`mmf.Start(addr)`)
    b"package main",
    b"spf13/pflag",  # flags that name what the program dials
    b"spf13/cobra",
    b"spf13/viper",  # the settings a program reads its addresses from (SettingsKey)
    b"go-kratos/kratos",  # a framework's gRPC server (FRAMEWORK_SERVERS)
    b"net.Listener",  # a function that returns one (its `listener` export), a field of one
    b"net.UnixListener",
    b"HandlerFromEndpoint",  # a grpc-gateway registration, which dials (GATEWAY_DIALS)
)
GRPC = "google.golang.org/grpc"
# The constructors of a grpc-go server (the same `grpc.ServerOption`s, served with `Serve`)
# -> what balances each call to it (facts.Server.balanced_by): grpc.NewServer's clients
# are balanced per connection; an xDS server's are xDS clients, which balance each call.
SERVER_FACTORIES: dict[str, str | None] = {
    f"{GRPC}.NewServer": None,
    f"{GRPC}/xds.NewGRPCServer": "xDS",
}
# Go frameworks' gRPC servers, which make a grpc-go server with the grpc-go options they
# are handed and serve it the same way: go-kratos' `transport/grpc.NewServer(opts...)`
# takes its own options, of which `Options(...)` holds the grpc-go ones (the server's
# only), `Address(addr)` and `Listener(lis)` say where it listens, and the others (kratos
# middleware, interceptors, TLS, timeouts) set no connection option. -> how messages name it
KRATOS_GRPC = tuple(
    f"github.com/go-kratos/kratos/{version}/transport/grpc" for version in ("v2", "v3")
)
FRAMEWORK_SERVERS = {f"{package}.NewServer": "kratos/grpc.NewServer" for package in KRATOS_GRPC}
SERVER_FACTORIES.update(dict.fromkeys(FRAMEWORK_SERVERS))
KRATOS_OPTIONS = frozenset(
    {
        "Network",
        "Endpoint",
        "Timeout",
        "Logger",
        "Middleware",
        "StreamMiddleware",
        "CustomHealth",
        "TLSConfig",
        "UnaryInterceptor",
        "StreamInterceptor",
        "DisableReflection",
    }
)
KEEPALIVE = "google.golang.org/grpc/keepalive"
HEALTH = "google.golang.org/grpc/health"
# qualified function -> (index of the target argument, the resolver a bare target gets)
CHANNEL_FACTORIES = {
    f"{GRPC}.Dial": (0, "passthrough"),
    f"{GRPC}.DialContext": (1, "passthrough"),
    f"{GRPC}.NewClient": (0, "dns"),
}
# grpc-gateway's generated `Register<Service>HandlerFromEndpoint(ctx, mux, endpoint, opts)`
# dials `endpoint` with the dial options `opts` holds and keeps the channel until `ctx` is
# done (its generator's template, protoc-gen-grpc-gateway/internal/gengateway/template.go):
# v1 and v2 before 2.20 with grpc.Dial or DialContext (passthrough), v2.20 on with
# grpc.NewClient (dns). By the gateway's import path (its `runtime`), the call that dials,
# as (message name, the resolver a bare target gets); v2's is taken as the current one's.
GATEWAY = "github.com/grpc-ecosystem/grpc-gateway"
GATEWAY_DIALS = {"v1": ("grpc.Dial", "passthrough"), "v2": ("grpc.NewClient", "dns")}
GATEWAY_PARTS = ("Register", "HandlerFromEndpoint")  # `Register\w+HandlerFromEndpoint`
# The calls that open a database/sql pool -> the index of their DSN argument: sql.Open and
# sqlx's (an *sqlx.DB embeds the *sql.DB it opens, SetConnMaxLifetime and its default of
# never included; Connect only pings it too).
SQLX = "github.com/jmoiron/sqlx"
# pgx's own pools (not database/sql's): a connection lives an hour at most by default
# (`MaxConnLifetime`), so KLB203 leaves them alone; they are a dependency all the same
# (KLB303: a readiness handler that answers OK while the code holds one)
PGX_POOLS = {
    f"github.com/jackc/pgx/{version}/pgxpool.{name}": 1
    for version in ("v4", "v5")
    for name in ("New", "NewWithConfig", "Connect", "ConnectConfig")
}
POOL_OPENERS = {
    "database/sql.Open": 1,
    **{f"{SQLX}.{name}": 1 for name in ("Open", "Connect", "MustOpen", "MustConnect")},
    **{f"{SQLX}.{name}": 2 for name in ("ConnectContext", "MustConnectContext")},
    **PGX_POOLS,
}
# GORM's `gorm.Open(dialector)` opens a database/sql pool through the dialector a driver's
# `Open(dsn)` makes (`gorm.Open(postgres.Open(dsn), &gorm.Config{})`): its pool is the
# `*sql.DB` that `db.DB()` gives, on which SetConnMaxLifetime is set (never by default).
GORM = "gorm.io/gorm"
GORM_DIALECTORS = {
    f"gorm.io/driver/{driver}.Open": driver
    for driver in ("mysql", "postgres", "sqlserver", "clickhouse", "sqlite")
}
# GORM v1 (jinzhu/gorm) opens the pool itself: `gorm.Open("mysql", dsn)`, the dialect's name
# then its DSN (or a *sql.DB opened before, whose pool it keeps); its `db.DB()` gives the
# *sql.DB alone, so the lifetime is often set as `db.DB().SetConnMaxLifetime(...)`.
GORM_V1 = "github.com/jinzhu/gorm"
# Service registries' Go clients, by import path (or its prefix), and the calls that
# register the process in one: Consul's agent ServiceRegister, etcd's endpoints manager
# AddEndpoint, Eureka's (fargo) and Nacos's RegisterInstance; a ZooKeeper node is one
# when it is ephemeral (`Create(..., zk.FlagEphemeral, ...)`).
REGISTRY_CLIENTS = {
    "github.com/hashicorp/consul/api": "Consul",
    "go.etcd.io/etcd/client/v3/naming/endpoints": "etcd",
    "github.com/go-zookeeper/zk": "ZooKeeper",
    "github.com/samuel/go-zookeeper/zk": "ZooKeeper",
    "github.com/hudl/fargo": "Eureka",
    "github.com/nacos-group/nacos-sdk-go": "Nacos",
}
REGISTER_CALLS = frozenset(
    {"ServiceRegister", "ServiceRegisterOpts", "AddEndpoint", "RegisterInstance"}
)
# gRPC resolvers that read a registry (imported for their side effect, or built)
REGISTRY_RESOLVERS = {
    "github.com/mbobakov/grpc-consul-resolver": "Consul",
    "go.etcd.io/etcd/client/v3/naming/resolver": "etcd",
}
# keepalive.ServerParameters fields -> gRPC's core option names (milliseconds)
SERVER_PARAMETERS = {
    "MaxConnectionAge": "grpc.max_connection_age_ms",
    "MaxConnectionAgeGrace": "grpc.max_connection_age_grace_ms",
    "MaxConnectionIdle": "grpc.max_connection_idle_ms",
    "Time": "grpc.keepalive_time_ms",
    "Timeout": "grpc.keepalive_timeout_ms",
}
# time's duration constants, in milliseconds
DURATIONS = {
    "time.Nanosecond": 1e-6,
    "time.Microsecond": 1e-3,
    "time.Millisecond": 1,
    "time.Second": 1000,
    "time.Minute": 60_000,
    "time.Hour": 3_600_000,
}
# The largest Duration: grpc-go's keepalive `infinity` (`time.Duration(math.MaxInt64)`,
# the default of MaxConnectionAge and MaxConnectionIdle), read as a count as large as any
# duration, so that an age set to it counts as none (no maximum)
_MATH_CONSTANTS = {"math.MaxInt64": 2**63 - 1}
SIGTERM = ("syscall.SIGTERM", "golang.org/x/sys/unix.SIGTERM")
_INTERRUPTS = ("os.Interrupt", "syscall.SIGINT", "golang.org/x/sys/unix.SIGINT")
# Library functions that catch SIGTERM (and SIGINT) for the program and give what is done
# once it comes: a context (controller-runtime's, also re-exported as `ctrl.`, knative's
# NewContext, k8s.io/apiserver's SetupSignalContext) or a channel closed then (its and the
# older sample-controller's SetupSignalHandler). `signals` packages copied from
# sample-controller into a project name theirs alike (`signals_package`).
SIGNAL_LIBRARIES = frozenset(
    {
        "sigs.k8s.io/controller-runtime.SetupSignalHandler",
        "sigs.k8s.io/controller-runtime/pkg/manager/signals.SetupSignalHandler",
        "k8s.io/apiserver/pkg/server.SetupSignalHandler",
        "k8s.io/apiserver/pkg/server.SetupSignalContext",
        "knative.dev/pkg/signals.NewContext",
    }
)
_SIGNALS_PACKAGE_FUNCTIONS = ("SetupSignalHandler", "SetupSignalContext")


def signal_library(name: str | None) -> bool:
    """Whether a call of `name` (qualified) is a library's SIGTERM handler: one of
    SIGNAL_LIBRARIES, or the SetupSignalHandler/SetupSignalContext of a package named
    `signals` (sample-controller's, and the copies projects keep of it)."""
    if name is None:
        return False
    package, _, function = name.rpartition(".")
    return name in SIGNAL_LIBRARIES or (
        package.rpartition("/")[2] == "signals" and function in _SIGNALS_PACKAGE_FUNCTIONS
    )


# Functions that run once per process: what they make lives as long as the process.
ONCE = regex.compile(
    r"^(main|init|run|serve|start|setup|New[A-Z_]\w*|new[A-Z_]\w*|Run\w*|Serve\w*|Start\w*)$"
)


@cache  # asked of the same few names for every call a function makes
def _runs_once(function: str) -> bool:
    return ONCE.match(function) is not None


_GENERATED = regex.compile(rb"^// Code generated .* DO NOT EDIT\.$", regex.MULTILINE)


def worth_parsing(data: bytes) -> bool:
    return any(word in data for word in WATCHED)


def is_generated(data: bytes) -> bool:
    """Go's convention for generated files: the comment comes before `package`."""
    end = data.find(b"\npackage ")
    head = data if end == -1 else data[:end]
    # the comment's words, looked for first: most files have none, and RE2's binding
    # copies the text it is given
    return b" DO NOT EDIT." in head and _GENERATED.search(head) is not None


@cache
def parser() -> Parser:
    import tree_sitter_go
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_go.language()))


_IMPORT_BLOCK = regex.compile(rb"^import\s*\(([^)]*)\)", regex.MULTILINE)
_IMPORT_LINE = regex.compile(rb'^import\s+(?:[\w.]+\s+)?"([^"]+)"', regex.MULTILINE)


def go_imports(data: bytes) -> tuple[tuple[int, str], ...]:
    """The import paths of a Go file, read from its import declarations (level 0, as
    Python's absolute imports): which packages the program links in. What `_IMPORT_LINE`'s
    and `_IMPORT_BLOCK`'s matches hold, scanned from the lines that start with `import`
    (RE2's binding copied the whole text for each pattern: a fifth of a bench file's parse)."""
    lines: list[bytes] = []
    blocks: list[bytes] = []
    line_end = block_end = 0  # where each pattern's last match ended (matches do not overlap)
    lines_left = blocks_left = True  # no `"` or no `)` further on: no more matches
    at = data.find(b"import")
    while at != -1 and (lines_left or blocks_left):
        if at == 0 or data[at - 1] == 10:  # `^` (MULTILINE): after a `\n` only
            after = _skip(data, at + 6, _SPACE)
            if lines_left and at >= line_end and after > at + 6:
                quote = after
                if quote < len(data) and data[quote] in _NAME:  # `import g "path"`
                    name_end = _skip(data, quote, _NAME)
                    quote = _skip(data, name_end, _SPACE)
                    quote = quote if quote > name_end else len(data)
                if quote < len(data) and data[quote] == 34:  # `"`
                    end = data.find(b'"', quote + 1)
                    if end == -1:
                        lines_left = False
                    elif end > quote + 1:
                        lines.append(data[quote + 1 : end])
                        line_end = end + 1
            if blocks_left and at >= block_end and after < len(data) and data[after] == 40:
                end = data.find(b")", after + 1)  # `import (`
                if end == -1:
                    blocks_left = False
                else:
                    blocks += _quoted(data[after + 1 : end])
                    block_end = end + 1
        at = data.find(b"import", at + 1)
    found = lines + blocks
    return tuple((0, path.decode("utf-8", "replace")) for path in dict.fromkeys(found))


_SPACE = frozenset(b" \t\n\f\r")  # RE2's `\s` (no `\v`)
_WORD = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")  # `\w`
_NAME = _WORD | {ord(".")}  # `[\w.]`


def _skip(data: bytes, at: int, chars: frozenset[int]) -> int:
    """Where the run of `chars` that starts at `at` ends."""
    end = len(data)
    while at < end and data[at] in chars:
        at += 1
    return at


def _quoted(text: bytes) -> list[bytes]:
    """What each `"..."` of a text holds (one line, not empty), left to right: the matches
    of `"([^"\n]+)"`, scanned (RE2's binding makes an object of each match, the most of
    what reading a file's imports cost)."""
    found = []
    at = text.find(b'"')
    while at != -1:
        end = text.find(b'"', at + 1)
        if end == -1:
            break
        inner = text[at + 1 : end]
        if inner and b"\n" not in inner:
            found.append(inner)
            at = text.find(b'"', end + 1)
        else:  # the quote that ends nothing may open the next
            at = end
    return found


_PACKAGE_CLAUSE = regex.compile(rb"^package\s+(\w+)", regex.MULTILINE)


def go_package(data: bytes) -> str:
    """The name a Go file's package clause gives (its first line that is one: comments
    and build constraints come before it), "" with none: `_PACKAGE_CLAUSE`'s first match,
    scanned from the lines that start with `package` (RE2's binding copied the text)."""
    at = data.find(b"package")
    while at != -1:
        if at == 0 or data[at - 1] == 10:
            name = _skip(data, at + 7, _SPACE)
            end = _skip(data, name, _WORD) if name > at + 7 else name
            if end > name:
                return data[name:end].decode("ascii", "replace")
        at = data.find(b"package", at + 1)
    return ""


def analyse_go(path: str, data: bytes) -> CodeFacts:
    """The facts of one Go file; a file that does not parse gives a KLB004 problem."""
    facts = CodeFacts(path, "go", is_test=path.endswith("_test.go"))
    facts.imports = go_imports(data)  # read from any file: a program's closure needs all
    facts.package = go_package(data)  # and which folders are programs (`package main`)
    if "vendor" in path.split("/")[:-1]:
        facts.callers_read = True  # a library's copy: it calls none of the tree's functions
        return facts
    # from every file of the tree (generated stubs call handlers), parsed or not
    found = read_callers(data, facts.is_test, import_names(facts.imports))
    facts.mentions, facts.callers_read = found.mentions, found.complete
    if is_generated(data):
        return facts
    if not worth_parsing(data):
        if (
            _ADDRESS_VALUE.search(data) is not None
            or _ADDRESS_FIELD.search(data) is not None
            or _ENV_HELPER_CALL.search(data) is not None
            or any(style.found(data) for style in _ENV_TAGS)  # a struct an env library fills
            # a listener's network (FieldNetwork)
            or (not facts.is_test and _NETWORK_WRITE.search(data) is not None)
        ):
            # for the packages that import it, and the package's own other files
            _read_values(path, data, facts)
        return facts
    # Go ends the last line with a semicolon whether or not a newline follows it;
    # tree-sitter's grammar wants the newline after a type declaration (no offset moves)
    root = parsed(parser(), data if data.endswith(b"\n") else data + b"\n")
    if root is None:
        facts.problem = parse_too_long(path, "Go")
        return facts
    facts.problem = syntax_problem(path, root, "Go")
    if facts.problem is not None:
        if b"new" in data:
            facts.problem = _newer_go(data, facts.problem)
        facts.problem = graded(facts.problem, root, data, "Go")
        return facts
    facts.problem = too_deep(path, root, "Go")
    if facts.problem is not None:
        return facts
    collector = _Collector(path, data, facts)
    try:
        collector.run(root)
    except _TooDeep as deep:  # what was read of it goes: it is read as a broken file is
        unread = CodeFacts(path, "go", is_test=facts.is_test)
        unread.imports, unread.package = facts.imports, facts.package
        unread.mentions, unread.callers_read = facts.mentions, facts.callers_read
        problem = Problem("KLB004", path, deep.line, 1, "")
        why = f"functions and blocks nested too deep to read (at line {deep.line})"
        unread.problem = not_analysed(problem, why)
        return unread
    finally:
        # its closers' reader holds one of its methods: a cycle, which a run (the cyclic
        # collector off) never freed, and with it the file's tree and every call's shape
        collector.closer_reader = None
    facts.markers = comment_markers(path, data.decode("utf-8", "replace"), comment_pattern("//"))
    facts.spans = serving_spans(facts, found.spans)
    return facts


class _TooDeep(Exception):
    """A file whose functions and blocks nest some MAX_NESTING deep (100 functions, 200
    `if`s): no program's code, and a reader that asks tree-sitter for a node's `parent`
    (found by descending from the root) would pay the square of the depth for it. The
    file is left unread, said at info."""

    def __init__(self, line: int) -> None:
        self.line = line


# `new(` as Go writes it: the builtin's call (or a method or function of that name)
_NEW_CALL = regex.compile(rb"\bnew[ \t]*\(")


def _newer_go(data: bytes, problem: Problem) -> Problem:
    """KLB004 at info when all the grammar refused is `new` given an expression (`new(
    int64(5))`, Go 1.26; tree-sitter's Go grammar 0.25 takes only a type there): the file,
    each `new(` read as a call of another name (every byte keeps its place), parses. The
    file is then left unread, as one in a version of Go newer than the grammar."""
    again = bytearray(data)
    for found in _NEW_CALL.finditer(data):
        again[found.start() : found.start() + 3] = b"_ew"
    if again == data:
        return problem
    root = parsed(parser(), bytes(again))
    if root is None or syntax_problem("", root, "Go"):
        return problem
    return not_analysed(
        problem,
        f"`new` given an expression at line {problem.line} (Go 1.26), which "
        "tree-sitter's Go grammar does not read yet",
    )


@dataclass(frozen=True)
class _EnvTag:
    """How an env library's struct tag names a field's variable (the value of `key`, up to
    a comma's options) and its default (the value of `default`), as the library documents."""

    marker: bytes  # in a file that may hold it
    key: str
    default: str
    upper: bool = False  # the library upper-cases the name
    # the file may prefix the names (a tag then names only their end): not read there
    prefixes: tuple[bytes, ...] = ()
    # envconfig's `split_words:"true"` on a field its tag does not name: the field's name
    # split into its words, joined by `_` (`AuthGrpcPort`: AUTH_GRPC_PORT); a mark of it
    split: bytes = b""

    def unsure(self, data: bytes) -> bool:
        return any(prefix in data for prefix in self.prefixes)

    def found(self, data: bytes) -> bool:
        return (self.marker in data or (bool(self.split) and self.split in data)) and not (
            self.unsure(data)
        )

    def variable(self, values: dict[str, str], field: str) -> EnvRef | None:
        """The variable the tag's `values` name for the field, with its default."""
        name = values.get(self.key, "").split(",", 1)[0].strip()
        if not name and self.split and values.get("split_words") == "true":
            name = "_".join(_words(field))
        name = name.upper() if self.upper else name
        if not name or name == "-":  # `env:"-"`: the field is not read
            return None
        return EnvRef(name, values.get(self.default))


def _words(name: str) -> list[str]:
    """A Go name's words as envconfig splits them: a run of capitals with the lower-case run
    after it (or alone), a lower-case run, and an acronym's last capital taken to the word
    it begins (`GRPCEndpoint`: GRPC, Endpoint)."""
    words: list[str] = []
    at = 0
    while at < len(name):
        start = at
        while at < len(name) and name[at].isupper():
            at += 1
        capitals = at - start
        while at < len(name) and not name[at].isupper():
            at += 1
        word = name[start:at]
        if capitals >= 2 and at - start > capitals:  # `GRPCE` + `ndpoint`
            words += [word[: capitals - 1], word[capitals - 1 :]]
        else:
            words.append(word)
    return words


# the package variables of an env library's struct exported field by field (a package
# holds one or two: `var Config Configuration`)
MAX_TAGGED_VARIABLES = 8
_ENV_TAGS = (
    # caarlos0/env (and those that copy its tag): `env:"NAME,required"`, `envDefault:"x"`;
    # its prefixes (an `envPrefix` tag, Options' Prefix) make the name longer
    _EnvTag(b'env:"', "env", "envDefault", prefixes=(b"envPrefix", b"Prefix:")),
    # kelseyhightower/envconfig: `envconfig:"NAME"` upper-cased, `default:"x"`; a prefix
    # given to Process is tried first and the tag's name then, alone
    _EnvTag(b'envconfig:"', "envconfig", "default", upper=True, split=b'split_words:"true"'),
)


_VIPER = "github.com/spf13/viper"
# viper's calls that name its settings file: folders to look in, its name, or its path
_VIPER_FILES = frozenset(("AddConfigPath", "SetConfigName", "SetConfigFile"))


# viper's calls that say where the environment and defaults give keys their values
_VIPER_ENVIRONMENT = frozenset(
    ("AutomaticEnv", "SetEnvPrefix", "SetEnvKeyReplacer", "SetDefault", "BindEnv", "MustBindEnv")
)


# viper's calls that read a key from its own registry by name (`viper.GetInt("PORT")`)
_VIPER_GETS = frozenset(
    ("Get", "GetString", "GetInt", "GetInt32", "GetInt64", "GetUint", "GetUint32", "GetUint64")
)
# viper's calls that read settings from a file or a reader: a key's default is not known
_VIPER_READS = frozenset(
    ("ReadInConfig", "ReadConfig", "MergeInConfig", "MergeConfig", "ReadRemoteConfig")
)
# those that read the file its file calls name (the others read an io.Reader or a store)
_VIPER_FILE_READS = frozenset(("ReadInConfig", "MergeInConfig"))


class _ViperEnvironment:
    """What a file's viper calls say of the environment (`AutomaticEnv`, its prefix and
    replacements: None when not known) and of each key's default (by the key in lower
    case, as viper compares keys)."""

    def __init__(self) -> None:
        self.automatic = False
        self.prefix: str | None = ""
        self.replaced: dict[str, str] | None = {}
        self.defaults: dict[str, str] = {}
        # `BindEnv(key, names...)`: the variables bound to each key (None: not known);
        # `BindEnv(key)` alone binds the key's own, after the prefix (a None name)
        self.bound: dict[str, list[str | None]] = {}
        # the prefix and replacements the file sets (`prefix`, `replaced`), where it does
        self.given: dict[str, Any] = {}

    def bind(self, key: str, names: list[object]) -> None:
        """A key's variables, as `BindEnv` adds them (each not a literal: unknown)."""
        if len(self.bound) >= MAX_CHOICES * 64:
            return
        given: list[str | None] = [n if isinstance(n, str) else "" for n in names] or [None]
        kept = self.bound.setdefault(key.lower(), [])
        kept += [n for n in given if n not in kept][: max(MAX_CHOICES - len(kept), 0)]

    def knows(self, key: str) -> bool:
        """Whether viper knows the key without a settings file: a default, or a binding."""
        return key.lower() in self.defaults or key.lower() in self.bound

    def key(self, ref: SettingsKey) -> SettingsKey:
        """The settings key with the variable and the default viper gives it: the one
        variable it may be read from (the automatic one, then those bound to it, each
        through the replacer, as viper looks them up), None where several may be or one
        is not known."""
        names: set[str | None] = set()
        if self.automatic:
            names.add(self._own(ref.key))
        for name in self.bound.get(ref.key.lower(), []):
            names.add(self._own(ref.key) if name is None else self._replace(name or None))
        env = names.pop() if len(names) == 1 else None
        default = self.defaults.get(ref.key.lower())
        bound = ref.key.lower() in self.bound
        return SettingsKey(ref.key, ref.folders, ref.name, env, default, bound)

    def _own(self, key: str) -> str | None:
        """The key's own variable: the prefix and "_" before it, upper-cased, replaced."""
        if self.prefix is None:
            return None
        return self._replace((f"{self.prefix}_{key}" if self.prefix else key).upper())

    def _replace(self, name: str | None) -> str | None:
        if name is None or self.replaced is None:
            return None
        return name.translate({ord(old): new for old, new in self.replaced.items()})


def _settings_files(named: list[tuple[str, str | None]]) -> list[str] | None:
    """The settings files viper's file calls name (`SetConfigFile("/etc/app/app.toml")`;
    `AddConfigPath("/etc/app")` and `SetConfigName("app")`: `/etc/app/app`, its extension
    one viper tries): a path each, or None where one is not known, or a name is given
    with no folder, or several names (which one viper reads is the code's order)."""
    files = [path for call, path in named if call == "SetConfigFile"]
    names = [path for call, path in named if call == "SetConfigName"]
    folders = [path for call, path in named if call == "AddConfigPath"]
    if None in files or None in names or None in folders or len(names) > 1:
        return None
    if names and not folders:
        return None  # viper looks in no folder given none: the name alone reads nothing
    found = [os.path.normpath(str(f)) for f in files]
    found += [os.path.join(os.path.normpath(str(f)), str(names[0])) for f in folders if names]
    return found[:MAX_CHOICES] if len(found) <= MAX_CHOICES else None


def _settings_prefix(type_name: str, held: dict[str, list[tuple[str, str]]]) -> str | None:
    """The dotted keys (each ending in a dot) that lead to a struct type's fields from the
    struct no field holds: "" for that one; None where a type is held by several fields
    (which one is read is the code's) or deeper than MAX_DEPTH."""
    prefix = ""
    for _ in range(MAX_DEPTH):
        holders = held.get(type_name, [])
        if not holders:
            return prefix
        if len(holders) != 1:
            return None
        type_name, key = holders[0]
        prefix = f"{key}.{prefix}"
    return None


def _tag_values(tag: str) -> dict[str, str]:
    """A Go struct tag's `key:"value"` pairs apart by spaces, the first of a key kept, as
    reflect.StructTag reads them (an escaped quote in a value ends it here); scanned once,
    up to the 64th pair (more than any field's libraries need)."""
    found: dict[str, str] = {}
    at = 0
    for _ in range(64):
        colon = tag.find(':"', at)
        if colon < 0:
            break
        key = tag[at:colon].strip(" ")
        end = tag.find('"', colon + 2)
        if end < 0 or not key or " " in key or '"' in key:
            break
        found.setdefault(key, tag[colon + 2 : end])
        at = end + 1
    return found


# a string that may be an address (`"svc-db:3306"`, `"http://..."`), or one from the
# environment (an env helper's read too: `os.LookupEnv`)
_ADDRESS_VALUE = regex.compile(rb"""["`][^"`\n:]*:(?://|\d)|os\.(?:Getenv|LookupEnv)""")


# A struct literal that fills an address-named field from another value's field
# (`&Activities{OrderURL: cfg.OrderURL}`): a file worth reading for its literals alone
_ADDRESS_FIELD = regex.compile(
    rb"\b[A-Z]\w*\{[^{}]*\b\w+:\s*\w+(?:\.\w+)*\.\w*(?:URL|Url|Addr|Address|Endpoint|Host|Target)\b"
)


# A file that may give a listener's network to a field (FieldNetwork): a Unix network's
# literal (a flag's default, `Network: "unix"`), or a network-named field of a struct
# literal (`Options{Network: cfg.RuntimeNetwork}`, `Probe{Network: "tcp"}`), in a file
# that is no test; other files are read for them only where another reason has them read
# (a "tcp" alone was 18 more files read of 1,466 on a scheduler's tree, +20 % of its Go
# reading)
_NETWORK_WRITE = regex.compile(rb"""["`]unix|[Nn]etwork:\s*(?:["`]|\w+\.\w)""")


# A call of an env helper (`env.GetOr("LEDGER_ADDR", "")`, `getEnv("PORT", "8080")`): a
# configuration loader whose helper another file (or package) declares
_ENV_HELPER_CALL = regex.compile(rb"""\b\w+\(\s*"[A-Z_][A-Z0-9_]*"\s*,""")


def _read_values(path: str, data: bytes, facts: CodeFacts) -> None:
    """Only the package's exported values, env helpers and structs (a file with nothing
    else k8slb reads): the file's bindings read into a scratch of facts, of which the
    exports are kept."""
    root = parsed(parser(), data)
    if root is None or root.has_error or too_deep(path, root, "Go") is not None:
        return
    scratch = CodeFacts(path, "go", is_test=facts.is_test)
    collector = _Collector(path, data, scratch)
    collector.bind(root)
    collector.shaped = [(c, s, collector._called(c)) for c, s in collector.calls]
    collector._index_calls()
    collector.export_values()
    collector.export_tagged_variables()
    collector.export_env_helpers()
    collector.export_structs()
    collector._bind_flags()  # after the exports above, which read no flag here
    collector.export_field_sources()
    facts.exports = scratch.exports
    facts.deferred = scratch.deferred


# The types of the standard `testing` package a test hands its helpers.
_TEST_TYPES = frozenset({"T", "TB", "B", "F"})


# The fakes of a file judged (past them: read as any function is)
MAX_FAKES = 200


class Fakes:
    """The unexported functions and methods of a file that name themselves, or their
    receiver's type, a fake or a mock (`runFakeServer`, `(*mockPeer) serve`):
    out of a `main` package only the package can call one, and when nothing in the file
    calls it but a test's function, it is a test's stand-in (its servers are no pod's).
    Settled once the file's calls are indexed: a call from a function that is not a
    test's keeps it (a test file of the folder may call it; another file of the package
    that does not is not seen)."""

    def __init__(self) -> None:
        self.candidates: list[tuple[str, _Scope]] = []

    def of(self, function: Node, name: str, scope: _Scope) -> None:
        if not name[:1].islower():
            return  # exported: another package, a program, may call it
        receiver = function.child_by_field_name("receiver")
        owner = (
            next((_text(n) for n in walk(receiver) if n.type == "type_identifier"), "")
            if receiver is not None
            else ""
        )
        if stand_in_name(name) or (owner and stand_in_name(owner)):
            self.candidates.append((name, scope))

    def settle(self, calls_to: dict[str, list[tuple[Node, _Scope, _Called]]]) -> None:
        untested: dict[str, list[_Scope]] = {}  # by name: its callers not in a test
        for name, scope in self.candidates[:MAX_FAKES]:
            if name not in untested:
                untested[name] = [c for _, c, _ in calls_to.get(name, ()) if not c.in_test()]
            if not any(not _within(caller, scope) for caller in untested[name]):
                scope.testing = True


def _within(inner: _Scope | None, outer: _Scope) -> bool:
    """Whether `inner` is `outer` or within it, _SCOPE_DEPTH scopes up at most."""
    for _ in range(_SCOPE_DEPTH):
        if inner is None:
            return False
        if inner is outer:
            return True
        inner = inner.parent
    return False


# the writes of a package variable read to learn that only `init` assigns it (_set_in_init)
_INIT_WRITES = 16
# The scopes a call's is looked up through for a test's function (closures in closures)
_SCOPE_DEPTH = 64

# Connection multiplexers that serve several protocols on one listener (`cmux.New(lis)`),
# the calls that give each protocol its own listener, and how many wrapped in one another
# are followed
_MUXES = frozenset(("github.com/soheilhy/cmux", "github.com/cockroachdb/cmux"))
_MUX_MATCHES = frozenset(("Match", "MatchWithWriters"))
_MUX_DEPTH = 8
# the networks of `net.Listen(network, address)` whose address is a socket file's path
# (`net.ListenUnix` takes only these): a server there is reached from its own pod only
_UNIX_NETWORKS = frozenset(("unix", "unixpacket"))
# The types of a function's first result that make it one that returns a listener
# (`func ListenLocalSocket(path string) (net.Listener, error)`: its `listener` export)
_LISTENER_TYPES = frozenset(("net.Listener", "*net.UnixListener"))
# the net package's functions that listen on (network, address): `net.ListenUnix` takes
# only a Unix network, and the config whose `Listen(ctx, network, address)` is one
_NET_LISTENS = frozenset(("net.Listen", "net.ListenUnix"))
_LISTEN_CONFIG = "net.ListenConfig"
# The fields a file's FIELD_SOURCES export may name: past them, its fields are not told
MAX_SOURCE_FIELDS = 256
# grpc-go's in-memory listener (for a server its own process dials, and tests): no
# network reaches it, no Service either
_BUFCONN = "google.golang.org/grpc/test/bufconn.Listen"
# go-winio's listener on a Windows named pipe: the machine's own, as a Unix socket is
_NAMED_PIPE = "github.com/Microsoft/go-winio.ListenPipe"
_MADE_ON = 4  # calls nested in a call's arguments, read for what it is made on (_made_on)


@dataclass
class _Memo:
    """What the reader of a file found once of a body or function, asked again and again
    (by the thousands of calls of one function, or once at each depth of a chain)."""

    # by body node id: where it keeps what each name holds (_stored_place)
    stored: dict[int, dict[str, str]] = field(default_factory=dict)
    # by body node id: the fields each name is assigned (_fields_set)
    fields_set: dict[int, dict[str, dict[str, Node]]] = field(default_factory=dict)
    # by function declaration node id and depth: its listener (_function_listener)
    function_listeners: dict[tuple[int, int], Any] = field(default_factory=dict)
    # by function declaration node id: its returns (_returned_values)
    returned_values: dict[int, tuple[tuple[Node, _Scope], ...]] = field(default_factory=dict)


@dataclass
class _Scope:
    """The bindings of one function body (or, with no parent, of the package)."""

    parent: _Scope | None
    name: str = ""
    bindings: dict[str, list[Node]] = field(default_factory=lambda: defaultdict(list))
    # `x = "default"` under `if x == ""` (or `if !ok` after `x, ok := os.LookupEnv(...)`)
    defaults: dict[str, list[Node]] = field(default_factory=lambda: defaultdict(list))
    # the name each second result last told about (`exists` of `domain, exists := ...`)
    tells: dict[str, str] = field(default_factory=dict)
    opaque: set[str] = field(default_factory=set)  # parameters, `range` variables...
    # each `range` variable's clauses, with its place (0, the key or index; 1, the value)
    ranged: dict[str, list[tuple[Node, int]]] = field(default_factory=lambda: defaultdict(list))
    # a declared function's parameters, by name, at their place among a call's arguments
    # (a variadic one left out), and how its calls name it: (`dial`, False) for
    # `dial(x)`, (`Dial`, True) for a method, called as `c.Dial(x)`
    parameters: dict[str, int] = field(default_factory=dict)
    callee: tuple[str, bool] | None = None
    # a method's receiver: its name and the name of its type (`a`, `Activities` of
    # `func (a *Activities) Charge(...)`)
    receiver: tuple[str, str] | None = None
    # a function given a test's handle (`t *testing.T`, `tb testing.TB`), or a fake's
    # (Fakes): only a test can call it, so a server it makes, in it or in a closure of
    # it, is the test's
    testing: bool = False

    def in_test(self) -> bool:
        """Whether the scope is, or is within, a test's function (`testing`), looked for
        in _SCOPE_DEPTH scopes at most (deeper: not a test's, and judged)."""
        scope: _Scope | None = self
        for _ in range(_SCOPE_DEPTH):
            if scope is None:
                return False
            if scope.testing:
                return True
            scope = scope.parent
        return False

    def lookup(self, name: str) -> tuple[_Scope, list[Node]] | None:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.bindings or name in scope.opaque:
                return scope, scope.bindings.get(name, [])
            scope = scope.parent
        return None


class _Called:
    """What a call calls, read from its node once (each pass over the file's calls asks):
    its function (`s.conn.Close`), the operand and member of a selector, the name it calls
    (`_called_name`) and its arguments (`_items`)."""

    __slots__ = (
        "arguments",
        "function",
        "kind",
        "member",
        "name",
        "operand",
        "operand_kind",
        "receiver",
        "text",
    )

    def __init__(self, call: Node) -> None:
        function = call.child_by_field_name("function")
        self.function = function
        self.kind = function.type if function is not None else ""
        self.text = _text(function)
        selector = self.kind == "selector_expression"
        operand = function.child_by_field_name("operand") if selector and function else None
        self.operand = operand
        self.operand_kind = operand.type if operand is not None else ""
        self.receiver = _text(operand)
        self.member = _text(function.child_by_field_name("field")) if selector and function else ""
        self.name = self.member if selector else self.text if self.kind == "identifier" else ""
        self.arguments = _items(call.child_by_field_name("arguments"))


# a call, its scope, what it calls (qualified: `_Collector._callee_of`) and its `_Called`
_Named = tuple["Node", "_Scope", str | None, _Called]
# what functions write through their pointer parameters: by the function (its name, and
# whether a method), each write's parameter place, value and scope
_PointerWrites = dict[tuple[str, bool], list[tuple[int, "Node", _Scope]]]


class _Collector:
    # the values computed while the exports are made (value): by node id, scope id, depth
    # and `choosing`, each with the budget's steps it took
    remembered: dict[tuple[int, int, int, bool], tuple[Any, int]] | None = None
    # the file's reader of the closers its functions return (_closers), made when first asked
    closer_reader: Closers | None = None
    # the uses of each name looked for in a body, by the body's node id (uses_of), made
    # when first asked
    uses: dict[int, dict[str, list[Node]]] | None = None
    # the file's method declarations by name, made when first asked (_local_callee)
    methods: dict[str, list[Node]] | None = None
    # the file's struct types by name, made when first asked, and each one's fields, by
    # its node's id (_struct_fields)
    struct_types: dict[str, Node] | None = None
    field_names: dict[int, list[str]]
    # the servers held in a struct's field, by `Type.field` (_typed_field): their names;
    # and how the `Serve` calls name them, by the same (_served_as)
    typed_servers: dict[str, str]
    served: dict[str, str] | None = None
    # urfave/cli's names, flags and the functions CLI libraries run (parse_cli_flags.py),
    # each read once when first asked
    cli_imported: set[str] | None = None
    cli_defined: dict[str, FlagRef] | None = None
    cli_actions: set[str] | None = None
    # where each local a server is declared in is visible (None: not a declaration)
    server_spans: dict[str, _Spans]
    # the SIGTERM handlers asked whether a blocking Serve comes before, answered at once
    serves_before: ServesBefore
    # the servers made under each name with where their local is visible (None: anywhere)
    server_locals: dict[str, list[tuple[tuple[int, int] | None, Server]]]
    # the first receives of the channels only SIGINT is delivered to (_first_receives)
    first_receives: dict[int, tuple[int | None, int | None]] | None = None
    gateway_version: str | None = None  # grpc-gateway's the file imports (_gateway_version)
    # the `Handle` (`HandleFunc`) calls on each name, by member, then name (made when a mux
    # is first followed: parse_http_serve's routes)
    routes: dict[str, dict[str, list[tuple[_Scope, _Called]]]] | None = None
    root: Node  # the file's syntax tree (bind)
    assigned: set[str]  # the fields written other than by a literal (bind)

    def __init__(self, path: str, data: bytes, facts: CodeFacts) -> None:
        self.path, self.data = path, data  # its bytes: a name's uses are found in them
        self.lines = data.splitlines()
        self.facts = facts
        self.drains = b"NOT_SERVING" in data  # a health server's field set to it, maybe
        # the env libraries' struct tags the file may hold (_bind_env_tags)
        self.env_tags = [t for t in _ENV_TAGS if t.found(data)]
        # the variables a field's tags name, by field name, then its enclosing struct's field
        self.tagged: dict[str, dict[str, list[EnvRef | SettingsKey]]] = defaultdict(
            lambda: defaultdict(list)
        )
        # a string holds `://` (a URL, a registry's target) only where its text or an escape does
        self.strings = b"://" in data or b"\\" in data
        self.imports: dict[str, str] = {}  # local package name -> import path
        self.dot_imports: list[str] = []
        self.import_paths: list[str] = []
        self.package = _Scope(None)
        self.scope_of: dict[int, _Scope] = {}  # function body node id -> its scope
        self.calls: list[tuple[Node, _Scope]] = []
        # the receives (`<-x`), in source order, the signal's among them (parse_shutdown)
        self.unary: list[Node] = []
        self._fakes = Fakes()  # the file's fakes, as its functions are bound
        self.not_serving: list[Node] = []  # the `NOT_SERVING` names: a drain may follow
        self.declared: list[Node] = []  # function and method declarations (parse_routes)
        self.literals: list[tuple[Node, _Scope]] = []  # composite literals (http.Transport)
        # a sql.DB variable -> its pools in facts.db_pools (one for each address it may have)
        self.pools: dict[str, list[int]] = {}
        self.health: set[str] = set()  # variables holding a health.NewServer()
        # blocking Serve calls (by where they start) before a SIGTERM handler of their function
        self.late_handlers: dict[int, Loc] = {}
        self.budget = Budget()  # the values this file's reading may still compute
        self.closes: dict[int, set[str]] = {}  # by function body node id: _deferred_closes
        self.graceful: dict[int, set[str]] = {}  # by function: _bounds_graceful_stop
        self.undeclared: set[tuple[int, str]] = set()  # (scope id, name): package variables
        self.zero_declared: list[str] = []  # `var addr string`: init may set them
        self.dropped: dict[tuple[int, str, str], bool] = {}  # by body, name, asker's word
        self.identifiers: dict[int, dict[str, list[Node]]] = {}  # by body node id
        self.memo = _Memo()  # what a body or function read once gave, asked again
        # what receives SIGTERM: ("channel", name) of a Notify, ("context", name) of a
        # NotifyContext (parse_shutdown.py follows each receive to the exit it reaches)
        self.signal_sources: list[tuple[str, str]] = []
        self.interrupt_channels: list[tuple[str, Node]] = []  # Notify's of SIGINT alone
        self.returns: dict[int, set[str]] = {}  # by function body node id: _returned
        # the file's calls by the name they call (`dial` for `dial(x)` and `c.dial(x)`):
        # where a parameter's values come from (_passed)
        self.calls_to: dict[str, list[tuple[Node, _Scope, _Called]]] = defaultdict(list)
        self.shaped: list[tuple[Node, _Scope, _Called]] = []  # the calls, each read (run)
        # a value may be one of several (facts.Alternatives) only while choices() computes it
        self.choosing = False
        self.url_expressions: list[tuple[Node, _Scope]] = []  # `"http://" + host`
        self.written: set[str] | None = None  # the URLs of `facts.urls` written as texts
        # what the file writes to each field (`s.addr = v`, by name, whatever the struct: a
        # receiver and main's variable are one value; held_writes, by it and the field it is
        # in, (`addr`, `m`) of `s.m.addr = v` or `S{m: M{addr: v}}`), through functions' pointer
        # parameters (by function and place), and the calls handing one a field's address
        self.field_writes: dict[str, list[tuple[Node, _Scope]]] = defaultdict(list)
        self.held_writes: dict[tuple[str, str], list[tuple[Node, _Scope]]] = defaultdict(list)
        self.holders: dict[int, str] = {}  # a composite literal's key in the one holding it
        self.pointer_writes: _PointerWrites = defaultdict(list)
        self.field_passes: dict[str, list[tuple[Node, int, _Scope]]] = defaultdict(list)
        # the one call of a function its parameters are read from (_addresses), and its scope
        self.only: dict[tuple[str, bool], tuple[Node, _Scope]] = {}
        # what _long_lived found of a call (by node id and the name that holds it), and the
        # calls of each function (_callers): each asked again and again by the callers'
        self.kept: dict[tuple[int, str | None], bool] = {}
        self.callers: dict[tuple[str, bool], list[tuple[Node, _Scope]]] = {}
        self.functions: dict[str, Node] = {}  # the file's function declarations, by name
        self.env_helpers: dict[str, bool] = {}  # _env_helper's, and "number <f>" _number_parser's
        self.making: set[str] = set()  # the functions _made_by is reading (no cycle)
        self.read_only: dict[str, bool] = {}  # by method name: _reads_only's answer
        self.reads_env = b"os.Getenv" in data or b"os.LookupEnv" in data  # env helpers, maybe
        self.default_client = b"DefaultClient" in data  # held, or called on: named
        # the calls that send through a name (`client.Post(...)`, `client.Do(req)`), by
        # the node id of what the name is bound to: built when a Client first asks (_sent_to)
        self.sends: dict[int, list[tuple[Node, _Scope, _Called]]] | None = None
        self.held: dict[str, str] | None = None  # _held_servers, read once a file
        self.health_held: dict[str, str] | None = None  # _holds_health, read once a file
        self.closed_fields: set[str] | None = None  # _closed, read once a file
        self.returned_fields: dict[int, dict[str, str]] = {}  # by body id: _returned_field
        self.shapes: dict[int, _Called] = {}  # by call node id: _called

    def _called(self, call: Node) -> _Called:
        """The call's `_Called`, read once."""
        shape = self.shapes.get(call.id)
        if shape is None:
            shape = self.shapes[call.id] = _Called(call)
        return shape

    # -- driving -------------------------------------------------------------------------

    def bind(self, root: Node) -> None:
        self.root = root
        self.field_names = {}
        self.typed_servers = {}
        self.assigned = set()
        self._bind(root, self.package)
        self._set_in_init()

    def _set_in_init(self) -> None:
        """A package variable declared with no value (`var addr string`) that only the
        file's `init` functions assign holds what they assign (init runs before `main` and
        all it calls): one assignment, and its default under `if addr == ""` or `if err !=
        nil`. Assigned elsewhere (a closure of init too), its address taken (`&addr`), or
        written more than _INIT_WRITES times, it stays unknown."""
        if not self.zero_declared:
            return
        uses = self.identifiers_of(self.root)
        for name in self.zero_declared:
            if name not in self.package.bindings:
                continue  # no init assigns it: its zero value, or set where k8slb cannot see
            writes = [use for use in uses.get(name, []) if _written(use) or _in_place(use)]
            if len(writes) <= _INIT_WRITES and all(self._in_init(use) for use in writes):
                self.package.opaque.discard(name)

    def _in_init(self, node: Node) -> bool:
        """Whether `node` is in the body of one of the file's `init` functions itself."""
        top = self._top_level(node)
        if top.type != "function_declaration" or _text(top.child_by_field_name("name")) != "init":
            return False
        body = _enclosing_body(node)
        return body is not None and body == top.child_by_field_name("body")

    def _top_level(self, node: Node) -> Node:
        """The declaration of the file that holds `node` (a function, a method, a
        variable): the root's child that holds its first byte, asked of the root rather
        than climbed to by `parent`, which tree-sitter finds by descending from the root
        (a climb out of deeply nested literals costs the square of their depth)."""
        top = self.root.first_child_for_byte(node.start_byte)
        return top if top is not None else node

    def run(self, root: Node) -> None:
        self.bind(root)
        self._bind_flags()
        self._bind_env_tags(root)
        self._bind_settings_tags(root)
        # each call with what it calls (`_Called`), read once for every pass below
        self.shaped = [(call, scope, self._called(call)) for call, scope in self.calls]
        self._index_calls()
        if self.facts.package != "main":
            self._fakes.settle(self.calls_to)
        for expression, scope in self.url_expressions:
            for url in self.choices(expression, scope):
                self.facts.urls.append((url, self.loc(expression)))
        self.facts.routes = collect_routes(
            self.declared, ((call, shape.member) for call, _, shape in self.shaped), self.loc
        )
        servers: dict[str, Server] = {}
        self.server_spans = defaultdict(_Spans)
        self.serves_before = ServesBefore()
        self.server_locals = defaultdict(list)
        # each call with what it calls, by its package's import path when it is a package's
        named = [
            (call, scope, self._callee_of(shape, scope), shape)
            for call, scope, shape in self.shaped
        ]
        for call, scope, name, _ in named:
            self._facts_of_call(call, scope, name, servers)
        self._late_handlers(servers)
        self._called_names(named)
        for call, scope, name, shape in named:
            self._method(call, scope, servers, shape)  # a server's, a pool's, a health server's
            if name is not None and (
                name.startswith(("net/http.", "golang.org/x/net/http2/h2c."))
                or name in HTTP_HANDLER_WRAPPERS
            ):
                self._handed_to_http(call, servers)
            elif servers:
                self._handed_to_function(shape, scope, servers)
            if servers:
                self._handler_argument(shape, servers)
        if self.signal_sources:
            self._signal_handling(named)
        if self.not_serving:  # a drain method, whoever calls it on SIGTERM
            waits = self._wait_calls(named)
            seen = {pause.loc for pause in self.facts.signal_pauses}
            self.facts.signal_pauses += [
                pause
                for pause in drain_pauses(
                    self.not_serving, self.loc, lambda node: self._waits(node, waits), self.health
                )
                if pause.loc not in seen
            ]
        # a pool handed to callers outside the file: its lifetime may be set there
        self.facts.deferred |= any(p.returned and p.lifetime is None for p in self.facts.db_pools)
        for literal, scope in self.literals:
            self._http(literal, scope)
            server = self._type_name(literal.child_by_field_name("type")) == HTTP_SERVER
            for element in _keyed_elements(literal):
                key, value = _keyed(element)
                if _text(key) == "Handler" and _text(value) in servers:  # http.Server{Handler: s}
                    self.facts.http_served.add(_text(value))
                elif _text(key) == "Addr" and server:
                    self._http_listen(value, literal, scope)
        if any(path.startswith(H2C_PACKAGES) for path in self.import_paths):
            self.facts.http_listens = []  # HTTP/2 in the clear: gRPC may ride it
        # connect-go's handlers on a mux: a gRPC server, the mux, served as a handler is
        connect: dict[str, dict[int, _Scope]] = {}  # the scopes declaring each mux, by id
        for name, (made, homes) in connect_servers(self).items():
            if name not in servers:
                servers[name] = made
                self.facts.servers.append(made)
                connect[name] = homes
        # gRPC servers an HTTP server serves (its handler): waited on through net/http
        served = HttpServes(self, servers, HTTP_HANDLER_WRAPPERS, connect=connect).waits()
        self.facts.waits += served
        self.facts.deferred |= any(wait.pending for wait in served)  # read in imported.py
        self._export()

    def _late_handlers(self, servers: dict[str, Server]) -> None:
        """The blocking `Serve` calls a SIGTERM handler of their function follows, each
        with the first such handler (parse_late_handlers: asked as each handler was read,
        answered once the file's servers are all known)."""
        serve_calls = [
            (node.start_byte, shape.receiver)
            for node, _, shape in self.shaped
            if shape.kind == "selector_expression" and shape.member == "Serve"
        ]
        for start, call in self.serves_before.answers(list(servers), serve_calls):
            self.late_handlers.setdefault(start, self.loc(call))

    def _index_calls(self) -> None:
        """Each call by the name it calls (`calls_to`), and each that hands a field's
        address to a function (`f(&s.addr)`: `field_passes`)."""
        for call, scope, shape in self.shaped:
            if shape.name:
                self.calls_to[shape.name].append((call, scope, shape))
            for at, arg in enumerate(shape.arguments):
                operand = (
                    arg.child_by_field_name("operand") if arg.type == "unary_expression" else None
                )
                if operand is not None and operand.type == "selector_expression":
                    field = _text(operand.child_by_field_name("field"))
                    self.field_passes[field].append((call, at, scope))

    def _facts_of_call(
        self, call: Node, scope: _Scope, name: str | None, servers: dict[str, Server]
    ) -> None:
        """The facts of a call by what it calls (`name`, qualified): a channel, a server
        (added to `servers` by its name), a signal, a pool, an HTTP client or request...
        None in a test's helper (given `*testing.T`): no pod runs it."""
        if scope.in_test():
            return
        if name in CHANNEL_FACTORIES:
            self._channel(call, name, scope)
        elif _gateway_registration(name):
            self._gateway_channel(call, scope, name or "")
        elif name in SERVER_FACTORIES:
            server = self._server(call, scope, name)
            if server.name:
                servers[server.name] = server
                span = _declared_span(call)
                self.server_spans[server.name].add(span)
                if len(self.server_locals[server.name]) < MAX_CHOICES:
                    self.server_locals[server.name].append((span, server))
        elif name in ("os/signal.Notify", "os/signal.NotifyContext"):
            self._signal(call, name, servers, scope)
        elif signal_library(name):
            self._library_signal(call, servers)
        elif name in POOL_OPENERS:
            self._db(call, scope, name)
        elif name == _GORM_OPEN:
            self._gorm(call, scope)
        elif name == _GORM_V1_OPEN:
            self._gorm_v1(call, scope)
        elif name == _SQLX_WRAP:  # an *sqlx.DB over a pool opened before
            self._wrapped_pool(call)
        elif name in _DEFAULT_CLIENT_CALLS or (
            self.default_client and self._on_default_client(call)
        ):
            self._default_client(call, scope)
        elif self.default_client and (held := self._held_default_client(call, scope)) is not None:
            self._default_client(call, scope, held)
        elif name in REQUEST_URLS:
            self._request_url(call, REQUEST_URLS[name], scope)
        elif self._called(call).member == "Clone" and self._clones_default_transport(call):
            self._cloned_transport(call, scope)
        elif name in HTTP_LISTENERS:
            args = self._called(call).arguments
            if args:
                self._http_listen(args[0], call, scope)
        elif name in HTTP_LISTENER_SERVERS:
            # `http.Serve(lis, mux)`: plain HTTP where the listener it is given listens
            args = self._called(call).arguments
            listener = self._listener(args[0], scope) if args else None
            if listener is not None:
                address = self._listen_value(*listener)
                self.facts.http_listens.append(Listen("http", address, self.loc(call)))
        elif name == _SET_DEFAULT_SCHEME:
            # for every grpc.Dial of the program (code/imported.py reads it there)
            args = self._called(call).arguments
            scheme = self.value(args[0], scope) if args else UNKNOWN
            self.facts.exports[DEFAULT_SCHEME] = scheme
        elif name == _HEALTH_SERVER:
            self.facts.health_servicers.append(HealthServicer(self.loc(call), None))
            self.health.add(self._bound_to(call) or "")

    def _called_names(self, named: list[_Named]) -> None:
        """The names the file calls (`facts.called`), and the calls that register with a
        service registry the file imports a client of."""
        registries = [r for p in self.import_paths if (r := _registry_client(p))]
        for call, scope, _, shape in named:
            called = shape.name
            if called:
                self.facts.called.add(self._package_qualified(shape))
            if registries and _registers(call, called):
                self.facts.registrations.append(
                    Registration(self.loc(call), registries[0], called, scope.name)
                )

    def _signal_handling(self, named: list[_Named]) -> None:
        """What follows a signal the file waits for: the contexts it derives, the exits and
        the pauses (a sleep, a wait) before the server stops."""
        self._derived_contexts(named)
        bodies = [
            body
            for function in self.declared
            if function.type == "function_declaration"
            and _text(function.child_by_field_name("name")) == "main"
            and (body := function.child_by_field_name("body")) is not None
        ]
        mains = main_tails(bodies, self._named_calls)
        self.facts.signal_exits = signal_exits(mains, self.unary, self.signal_sources, self.loc)
        waits = self._wait_calls(named)
        self.facts.signal_pauses = signal_pauses(
            self.unary,
            self.signal_sources,
            self.loc,
            lambda node: self._waits(node, waits),
            self.health,
        )

    def _wait_calls(self, named: list[_Named]) -> dict[int, tuple[_Scope, str]]:
        """The file's `time.Sleep` and `time.After` calls, by node id (for _waits)."""
        return {
            call.id: (scope, name)
            for call, scope, name, _ in named
            if name in ("time.Sleep", "time.After")
        }

    def _named_calls(self, body: Node) -> list[tuple[int, str]]:
        """Where each call of a named function (`run(ctx)`) in a body starts, and the name:
        the body's own calls, not a function literal's inside it (main_tails)."""
        scope = self.scope_of.get(body.id)
        return [
            (call.start_byte, shape.text)
            for call, within, shape in self.shaped
            if within is scope and shape.kind == "identifier"
        ]

    # -- what other files read ---------------------------------------------------------------

    def _export(self) -> None:
        """What the other files of the program read from this one once every file is read
        (code/imported.py): the options each option helper returns (`options <name>`), and
        what its calls of other files' functions pass (`call <import path> <name>`, the
        path "" for the package's own): where those functions' parameters come from."""
        self.budget = Budget()  # the facts' own reading is done: these steps are apart
        if "net/http" in self.import_paths:
            self._export_handler_parameters()
        for name, declaration in self.functions.items():
            result = declaration.child_by_field_name("result")
            element = result.child_by_field_name("element") if result is not None else None
            kind = _OPTION_TYPES.get(self._type_name(element) or "")
            if result is None or result.type != "slice_type" or kind is None:
                continue
            found: list[tuple[Node, _Scope] | None] = []
            pending: list[Helper] = []
            for returned, scope in self._returned_values(declaration):
                self._slice_into(returned, scope, found, pending, 0)
            options = (
                self._server_entries(found)[0] if kind == "server" else self._dial_entries(found)
            )
            self.facts.exports[f"options {name}"] = replace(
                options, pending=tuple(dict.fromkeys(pending))
            )
        self.export_values()
        for name, declaration in self.functions.items():
            # what the listener it returns listens on, for another file's `Serve(lis)`
            if _returns_listener(declaration):
                self.facts.exports[f"listener {name}"] = self._function_listener(declaration, 0)
        self.export_tagged_variables()
        self.export_env_helpers()
        self.export_structs()
        self.export_viper_environment()
        self.export_field_sources()
        keyed = [
            (call, scope, self._call_key(shape, scope), shape) for call, scope, shape in self.shaped
        ]
        for call, scope, key, shape in keyed:
            if key is None and shape.function is not None and shape.text in self.functions:
                key = f"call  {shape.text}"  # the file's own, for Channel.kept_by too
            if key is not None:  # whether each call closes what it gets (facts.Channel.kept_by)
                closes = self.facts.exports.setdefault(f"closes{key[4:]}", [])
                if (closing := self._closes_per_call(call, scope)) not in closes:
                    closes.append(closing)
        self.choosing = True  # a caller's parameter may be one of several values
        # the calls pass the same names again and again (`ctx`, `s.db`, a parameter whose
        # callers are followed): each value is computed once here (`remembered`)
        self.remembered = {}
        try:
            for _, scope, key, shape in keyed:
                if key is None:
                    continue
                args = shape.arguments
                if not args or any(a.type == "variadic_argument" for a in args):
                    continue
                values = tuple(
                    UNKNOWN if _no_address(arg) else self._argument(arg, scope) for arg in args
                )
                calls = self.facts.exports.setdefault(key, [])
                if len(calls) <= MAX_CHOICES and any(not isinstance(v, Unknown) for v in values):
                    calls.append(values)
        finally:
            self.choosing = False
            self.remembered = None

    def _argument(self, arg: Node, scope: _Scope) -> Any:
        """What a call passes another file's function: its value, else the struct another
        package's function returned, passed whole (`whole_struct`)."""
        value = self.value(arg, scope)
        return self.whole_struct(arg, scope) if isinstance(value, Unknown) else value

    def export_values(self) -> None:
        """The package's exported constants and variables, each that the file binds once
        (`value <name>`: what another package's `config.Addr` is, facts.PackageValue)."""
        package = self.package
        for name, bound in package.bindings.items():
            if not name[:1].isupper() or len(bound) != 1 or package.defaults.get(name):
                continue
            if name not in package.opaque:
                value = self.value(bound[0], package)
                if not isinstance(value, Unknown):
                    self.facts.exports[f"value {name}"] = value

    def export_tagged_variables(self) -> None:
        """The package's exported variables of a struct type the file declares with its
        fields tagged for an env library (`var Config Configuration`, filled by
        `envconfig.Process`): `value <variable>.<field>` for each field whose tag names one
        variable, what another package's `utils.Config.AuthPort` reads (PackageValue)."""
        if not self.env_tags:
            return
        structs: dict[str, Node] = {}
        variables: list[tuple[str, str]] = []
        for statement in self.root.named_children:
            if statement.type == "type_declaration":
                for spec in statement.named_children:
                    kind = spec.child_by_field_name("type")
                    if spec.type == "type_spec" and kind is not None and kind.type == "struct_type":
                        structs[_text(spec.child_by_field_name("name"))] = kind
            elif statement.type == "var_declaration":
                for spec in statement.named_children:
                    kind = spec.child_by_field_name("type")
                    if spec.type != "var_spec" or spec.child_by_field_name("value") is not None:
                        continue
                    if kind is not None and kind.type == "type_identifier":
                        names = spec.children_by_field_name("name")
                        variables += [(_text(n), _text(kind)) for n in names]
        fields: dict[str, dict[str, EnvRef]] = {}  # by struct, each read once
        for variable, type_name in variables[:MAX_TAGGED_VARIABLES]:
            held = structs.get(type_name)
            if not variable[:1].isupper() or held is None:
                continue
            if type_name not in fields:
                fields[type_name] = self._tagged_fields(held)
            for field_name, ref in fields[type_name].items():
                self.facts.exports[f"value {variable}.{field_name}"] = ref

    def _tagged_fields(self, struct: Node) -> dict[str, EnvRef]:
        """The fields of a struct type whose tag names one variable, with it."""
        found: dict[str, EnvRef] = {}
        lists = [c for c in struct.named_children if c.type == "field_declaration_list"]
        for declaration in lists[0].named_children if lists else []:
            tag = declaration.child_by_field_name("tag")
            if declaration.type != "field_declaration" or tag is None:
                continue
            values = _tag_values(self._string(tag))
            for field_name in map(_text, declaration.children_by_field_name("name")):
                refs = {r for t in self.env_tags if (r := t.variable(values, field_name))}
                if len(refs) == 1:
                    found[field_name] = refs.pop()
        return found

    def export_structs(self) -> None:
        """The fields of the file's struct literals of its package's own types (`literal
        <type>`: one dict for each literal, what StructField reads), and of the structs its
        functions fill and return (`field <function> .<field>`: PackageField; another
        package's calls name only its exported ones, its own package's other files any)."""
        literals: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for literal, scope in self.literals:
            kind = literal.child_by_field_name("type")
            if kind is None or kind.type != "type_identifier" or scope.in_test():
                continue
            made = literals[_text(kind)]
            if len(made) > MAX_CHOICES:
                continue  # past what one_of joins: UNKNOWN, as more
            fields = self._composite(literal, scope, 0)
            made.append(fields if isinstance(fields, dict) else {})
        for type_name, made in literals.items():
            self.facts.exports[f"literal {type_name}"] = made
        # the fields the file sets other than in a literal (`s.URL = v`, a flag bound to
        # one, a pointer to one handed out): a literal elsewhere is not all they hold
        assigned = {*self.assigned, *self.field_passes, *self.tagged}
        if len(assigned) > _MAX_EXPORTED_FIELDS:
            self.facts.exports[ASSIGNED_FIELDS] = None  # any field, maybe
        elif assigned:
            self.facts.exports[ASSIGNED_FIELDS] = sorted(assigned)
        exported = 0
        for name, declaration in self.functions.items():
            # an unexported one too: the package's other files call it (`loadConfig()`)
            for field_name, value in self._filled(declaration).items():
                if exported < _MAX_EXPORTED_FIELDS and not isinstance(value, Unknown):
                    self.facts.exports[f"field {name} .{field_name}"] = value
                    exported += 1

    def _filled(self, declaration: Node, depth: int = 0) -> dict[str, Any]:
        """The fields of the struct a function fills and returns (`s := Settings{URL:
        "http://localhost:9001"}`, or `var s Settings` set field by field; then `if v :=
        os.Getenv("URL"); v != "" { s.URL = v }`, then `return s, nil`), as its
        statements leave them: a literal's value, replaced
        by each plain assignment after it, or made the variable's default by a write
        guarded by the variable being set (EnvRef). Any other write to a field (in a loop,
        an `else`, a nested block) leaves it unknown; a function that returns anything
        else, or more than one name, fills nothing."""
        body = declaration.child_by_field_name("body")
        scope = self.scope_of.get(body.id) if body is not None else None
        if body is None or scope is None or self.data.find(b"return", *body.byte_range) < 0:
            return {}  # (no return: nothing walked for one, each node a Python object)
        statements = _statements(body)
        # `return nil, err`: an error's way out, which hands the caller no struct
        returns = [r for s in statements for r in _returned_names(s) if _text(r) != "nil"]
        returned = {_text(r) for r in returns}
        if len(returned) != 1:
            return {}
        if returns[0].type == "composite_literal" and _filling_type(returns[0]):
            value = self._composite(returns[0], scope, depth)  # `return Upstreams{...}`
            return dict(value) if isinstance(value, dict) else {}
        name = returned.pop()
        fields: dict[str, Any] = {}
        started = False
        for statement in statements:
            if not started:
                literal = _filling(statement, name)
                if literal is not None:
                    value = self._composite(literal, scope, depth)
                    fields = dict(value) if isinstance(value, dict) else {}
                    started = True
                started = started or _declared_zero(statement, name)
                continue
            for field_name, value in self._set_by(statement, name, fields, scope):
                if not field_name:
                    return {}  # any field may be changed
                fields[field_name] = value
        return fields if started else {}

    def _set_by(
        self, statement: Node, name: str, fields: dict[str, Any], scope: _Scope
    ) -> Iterator[tuple[str, Any]]:
        """What one statement of `_filled` sets of the struct `name` holds; ("", UNKNOWN)
        where it may change any field (the struct passed on, a method called on it)."""
        writes = _struct_uses(statement, name, self._reads_only)
        if writes is None:
            yield "", UNKNOWN
            return
        if not writes:
            return
        direct = _assigned_field(statement, name)
        if direct is not None and len(writes) == 1:  # `s.URL = value`
            yield direct[0], self.value(direct[1], scope)
            return
        guarded = self._guarded_env(statement, name, scope)
        for field_name in sorted(writes):
            if guarded is not None and guarded[0] == field_name and len(writes) == 1:
                default = fields.get(field_name)
                known = isinstance(default, str) and not isinstance(default, Unknown)
                yield field_name, replace(guarded[1], default=default if known else UNKNOWN)
            else:
                yield field_name, UNKNOWN

    def _guarded_env(self, statement: Node, name: str, scope: _Scope) -> tuple[str, EnvRef] | None:
        """(field, variable) of `if v := os.Getenv("URL"); v != "" { s.URL = v }` (or
        `if v, ok := os.LookupEnv("URL"); ok { ... }`): a consequence that only writes the
        variable read in the `if`'s own statement to one field, and no `else`."""
        if statement.type != "if_statement" or statement.child_by_field_name("alternative"):
            return None
        consequence = statement.child_by_field_name("consequence")
        condition = statement.child_by_field_name("condition")
        initializer = statement.child_by_field_name("initializer")
        inner = _statements(consequence) if consequence is not None else []
        if len(inner) != 1 or condition is None or initializer is None:
            return None
        assigned = _assigned_field(inner[0], name)
        if assigned is None or assigned[1].type != "identifier":
            return None
        if initializer.type != "short_var_declaration":
            return None
        left = [_text(n) for n in _items(initializer.child_by_field_name("left"))]
        right = _items(initializer.child_by_field_name("right"))
        variable = _text(assigned[1])
        if len(right) != 1 or not left or left[0] != variable:
            return None
        value = self.value(right[0], scope)
        if not isinstance(value, EnvRef) or value.default is not None or value.prefix:
            return None
        text = "".join(_text(condition).split())
        if len(left) == 2:  # `v, ok := os.LookupEnv(...)`: `ok` says it is set
            said = text == left[1] or text in (f'{left[1]}&&{variable}!=""',)
        else:
            said = text in (f'{variable}!=""', f'""!={variable}', f"len({variable})>0")
        return (assigned[0], value) if said else None

    def export_env_helpers(self) -> None:
        """The file's env helpers (`env <name>`: `_env_helper`), for the calls of other
        files that name them (facts.PackageEnv)."""
        if not self.reads_env:
            return
        for name in self.functions:
            if self._env_helper(name):
                self.facts.exports[f"env {name}"] = True

    def _closes_per_call(self, call: Node, scope: _Scope) -> bool:
        """Whether what a call returns is closed before its function returns (`c, err :=
        NewClient(); defer c.Close()`), in a function that does not run once; or by a
        closer its function returns that each of its callers runs (parse_closers.py)."""
        if scope.parent is None:
            return False  # asked first: the node's parents are not walked for these
        name = self._bound_to(call)
        body = _enclosing_body(call) if name else None
        if not name or body is None:
            return False
        if not _runs_once(scope.name) and (
            name in self._deferred_closes(body) or self._dropped_by_handler(call, name, body)
        ):
            return True
        return self._closers().closed_per_call(body, name)

    def _closers(self) -> Closers:
        """The file's reader of returned closers (parse_closers.py), made when first asked."""
        if self.closer_reader is None:
            self.closer_reader = Closers(
                self.data,
                self._body_callers,
                lambda scope: scope.parent is None or _runs_once(scope.name),
            )
        return self.closer_reader

    def _body_callers(self, body: Node) -> list[tuple[Node, _Scope]] | None:
        """The file's calls of the function whose body this is: a declared one's by its
        name; a function literal's by the local it is bound to (in the function that binds
        it) or through the struct fields it is put in (`s.factory(...)`); None when the
        literal is handed on otherwise."""
        function = body.parent
        if function is None or function.type != "func_literal":
            scope = self.scope_of.get(body.id)
            return self._callers(scope) if scope is not None else None
        holders = literal_holders(function, self.uses_of)
        outer = _enclosing_body(function)
        if holders is None or outer is None:
            return None
        found: list[tuple[Node, _Scope]] = []
        for holder in holders:
            field_name = holder.removeprefix(".")
            for call, scope, shape in self.calls_to.get(field_name, []):
                if holder.startswith("."):
                    if shape.kind == "selector_expression":
                        found.append((call, scope))
                elif (
                    shape.kind == "identifier"
                    and outer.start_byte <= call.start_byte < outer.end_byte
                ):
                    found.append((call, scope))
        return found

    def _dropped_by_handler(self, call: Node, name: str, body: Node) -> bool:
        """Whether a net/http handler (`func(w http.ResponseWriter, r *http.Request)`) binds
        what a call returns to a new local and only calls its methods (`svc.Role.Create(
        ctx, req)`): never stored, passed, returned nor bound again, it is dropped when the
        request ends (not closed: a leak, but a connection per request, placed anew)."""
        declared = call.parent.parent if call.parent is not None else None
        function = body.parent
        if declared is None or declared.type != "short_var_declaration" or function is None:
            return False
        parameters = _text(function.child_by_field_name("parameters")).replace(" ", "")
        if "net/http" not in self.import_paths or "*http.Request" not in parameters:
            return False
        key = (body.id, name, "dropped")
        known = self.dropped.get(key)
        if known is None:  # once a body and name: many calls in one body stay linear
            uses = self.uses_of(body, name)
            bound = [n for n in uses if n.parent is not None and n.parent.parent == declared]
            known = len(bound) == 1 and all(
                _only_method_called(n) for n in uses if n.id != bound[0].id
            )
            self.dropped[key] = known
        return known

    def uses_of(self, body: Node, name: str) -> list[Node]:
        """The identifiers of a body that are `name`, in source order (`identifiers_of`'s
        list): each place its bytes hold the name whose smallest node is an identifier of
        exactly those bytes, not a query of every identifier of the body and the text of
        each. A body asked for more than _MAX_SCANS names, or whose bytes hold the name
        more than _MAX_SCANNED times, is indexed whole once instead (many servers in one
        body, or `aaaa...`: a scan a name, or a look at each place, would cost more)."""
        indexed = self.identifiers.get(body.id)
        if indexed is not None:
            return indexed.get(name, [])
        if self.uses is None:
            self.uses = {}
        looked = self.uses.setdefault(body.id, {})
        found = looked.get(name)
        if found is not None:
            return found
        word = name.encode("utf-8")
        if len(looked) >= _MAX_SCANS or not word or "\ufffd" in name:
            return self.identifiers_of(body).get(name, [])
        found = []
        data, start, end, size = self.data, body.start_byte, body.end_byte, len(word)
        at = data.find(word, start, end)
        for _ in range(_MAX_SCANNED):
            if at == -1:
                break
            after = at + size
            # an ASCII letter, digit or `_` beside it: part of a longer name
            beside = (at > 0 and data[at - 1] in _WORD) or (
                after < len(data) and data[after] in _WORD
            )
            node = None if beside else body.descendant_for_byte_range(at, after)
            if (
                node is not None
                and node.type == "identifier"
                and node.start_byte == at
                and node.end_byte == after
            ):
                found.append(node)
            at = data.find(word, at + 1, end)
        else:  # written more often than a body of code names one thing: indexed whole
            return self.identifiers_of(body).get(name, [])
        looked[name] = found
        return found

    def identifiers_of(self, body: Node) -> dict[str, list[Node]]:
        """A body's identifiers by name, read once a body."""
        found = self.identifiers.get(body.id)
        if found is None:
            found = defaultdict(list)
            for node in captured(parser(), body, "(identifier) @i").get("i", []):
                found[_text(node)].append(node)
            self.identifiers[body.id] = found
        return found

    def _call_key(self, shape: _Called, scope: _Scope) -> str | None:
        """How the export of a call of another file's function is keyed (`_export`)."""
        if shape.function is None:
            return None
        if shape.kind == "identifier":
            name = shape.text
            local = name in self.functions or name in _BUILTINS or scope.lookup(name)
            return None if local else f"call  {name}"
        operand = shape.operand
        if shape.kind != "selector_expression" or operand is None:
            return None
        package = self.imports.get(shape.receiver) if shape.operand_kind == "identifier" else None
        if package is None or _standard(package) or scope.lookup(shape.receiver):
            return None
        return f"call {package} {shape.member}"

    def _package_qualified(self, shape: _Called) -> str:
        """`prometheus.Register` for a call of an imported package's function (as the
        file names the package), else the bare name (a method: `s.registry.Register`)."""
        if shape.operand_kind == "identifier" and shape.receiver in self.imports:
            return f"{shape.receiver}.{shape.name}"
        return shape.name

    def _handler_argument(self, shape: _Called, servers: dict[str, Server]) -> None:
        """A gRPC server given where only an http.Handler fits: a router's
        `Handle(pattern, s)` (net/http's ServeMux, gorilla/mux, chi: each takes an
        http.Handler second), or its `ServeHTTP` method given as a value
        (`mux.HandleFunc("/", s.ServeHTTP)`, `http.HandlerFunc(s.ServeHTTP)`)."""
        arguments = shape.arguments
        if shape.member == "Handle" and len(arguments) == 2:
            last = arguments[1]
            if last.type == "identifier" and _text(last) in servers:
                self.facts.http_served.add(_text(last))
        for arg in arguments:
            if arg.type != "selector_expression":
                continue
            field = arg.child_by_field_name("field")
            operand = _text(arg.child_by_field_name("operand"))
            if _text(field) == "ServeHTTP" and operand in servers:
                self.facts.http_served.add(operand)

    def _handed_to_function(
        self, shape: _Called, scope: _Scope, servers: dict[str, Server]
    ) -> None:
        """A gRPC server passed to a function of the tree (`grpcutil.NewMuxHandler(s, h)`,
        or one of the file's own): kept for imported.py, which adds it to `http_served`
        where the function's parameter at that place is an http.Handler (its export
        HANDLER_PARAMETERS)."""
        key = self._call_key(shape, scope)
        if key is None and shape.kind == "identifier" and shape.text in self.functions:
            key = f"call  {shape.text}"
        if key is None:
            return
        _, package, member = key.split(" ", 2)
        handed = self.facts.exports.setdefault(HANDED_SERVERS, [])
        for at, arg in enumerate(shape.arguments):
            if arg.type == "identifier" and _text(arg) in servers and len(handed) < MAX_CHOICES:
                handed.append((package, member, at, _text(arg)))
                self.facts.deferred = True  # the function's parameters are read there

    def _export_handler_parameters(self) -> None:
        """Each function's parameters of type http.Handler, by place (`func
        NewMuxHandler(grpcHandler, httpHandler http.Handler)`: 0 and 1), for the files that
        hand it a gRPC server (`_handed_to_function`)."""
        for name, declaration in self.functions.items():
            parameters = declaration.child_by_field_name("parameters")
            if parameters is None:
                continue
            places: list[int] = []
            at = 0
            for item in parameters.named_children:
                if item.type != "parameter_declaration":
                    continue
                names = [c for c in item.children_by_field_name("name") if c.type == "identifier"]
                handler = self._type_name(item.child_by_field_name("type")) == HTTP_HANDLER
                for _ in names or [item]:  # `func f(http.Handler)`: one unnamed
                    if handler:
                        places.append(at)
                    at += 1
            if places:
                self.facts.exports[f"{HANDLER_PARAMETERS}  {name}"] = [tuple(places)]
            served = served_parameters(self, declaration, HTTP_HANDLER_WRAPPERS)
            if served is not None:  # `func GatewayServer(s *grpc.Server) *http.Server`
                self.facts.exports[f"{SERVED_PARAMETERS}  {name}"] = [served]

    def _handed_to_http(self, call: Node, servers: dict[str, Server]) -> None:
        """A gRPC server passed to net/http or h2c (`h2c.NewHandler(s, ...)`,
        `http.Handle("/", s)`), or wrapped into a handler (`grpcweb.WrapServer(s)`): served
        as an HTTP handler."""
        for arg in self._called(call).arguments:
            if arg.type == "identifier" and _text(arg) in servers:
                self.facts.http_served.add(_text(arg))

    def _bind(self, node: Node, scope: _Scope) -> None:
        """Record imports, bindings, calls and literals, scope by scope: tree-sitter's
        query engine finds the nodes of the kinds read (`_bound_query`), in source order, and
        each is placed in its scope and under its guard by where it starts among the
        open ranges (a function's body, an `if`'s consequence; a function's header and
        an import are skipped), not by a walk that made a Python object of every node."""
        query = _bound_query(self.strings, self.drains)
        # the ranges open at the node being read, innermost last: (end, scope, guard, skip)
        open_: list[tuple[int, _Scope, Node | None, bool]] = [(node.end_byte, scope, None, False)]
        found = captured_unordered(parser(), node, query)
        # the engine gives the captures in the order their patterns' matches end: sorted
        # into the walk's, an enclosing node before the nodes it holds (an import before
        # its path, the one node of the same bytes)
        ordered = [(n.start_byte, -n.end_byte, 0, n) for n in found.get("import", [])]
        ordered += [(n.start_byte, -n.end_byte, 1, n) for n in found.get("n", [])]
        ordered.sort(key=_place)
        # each `if`'s condition by where it ends: a consequence's is the last to end before
        # the block opens (asking the block's `parent`, found from the root, was quadratic
        # in an `else if` chain)
        conditions = sorted(found.get("condition", []), key=_end_byte)
        condition_ends = [c.end_byte for c in conditions]
        for start, _, _, current in ordered:
            while open_[-1][0] <= start:
                open_.pop()
            if len(open_) > 2 * MAX_NESTING:  # a function holds two ranges, a block one
                raise _TooDeep(int(current.start_point[0]) + 1)
            _, scope, guard, skip = open_[-1]
            if skip:
                continue
            kind = current.type
            if kind == "import_spec":
                self._import(current)
                open_.append((current.end_byte, scope, guard, True))  # its path is no URL
            elif kind in _FUNCTION_NODES:
                self._function(current, scope, open_)
            elif kind == "block":  # an `if`'s consequence (the query's only blocks)
                at = bisect_right(condition_ends, start) - 1
                condition = conditions[at] if at >= 0 else None
                open_.append((current.end_byte, scope, condition, False))
            elif kind in ("short_var_declaration", "assignment_statement"):
                self._assign(current, scope, guard)
            elif kind in ("var_spec", "const_spec"):
                self._declare(current, scope)
            elif kind == "range_clause":
                left = current.child_by_field_name("left")
                for child in walk(left) if left is not None else ():
                    if child.type == "identifier":
                        scope.opaque.add(_text(child))
                for place, child in enumerate(_items(left)):
                    if child.type == "identifier":
                        scope.ranged[_text(child)].append((current, place))
            elif kind == "call_expression":
                self.calls.append((current, scope))
            elif kind == "unary_expression":  # a receive (`<-x`), the query's only ones
                self.unary.append(current)
            elif kind == "composite_literal":
                self.literals.append((current, scope))
                self._note_holders(current)
                self._literal_fields(current, scope)
            elif kind == "field_identifier":
                if (current.text or b"").endswith(b"NOT_SERVING"):
                    self.facts.health_drains.append(self.loc(current))
                    self.not_serving.append(current)
            else:  # a string literal
                self._string_literal(current, scope)

    def _function(
        self, function: Node, scope: _Scope, open_: list[tuple[int, _Scope, Node | None, bool]]
    ) -> None:
        """A function's scope, its parameters' names, and the ranges it opens: its header
        skipped (its parameters' types are not read), its body read in its own scope."""
        kind = function.type
        if kind == "method_declaration":
            self._health_check(function)
        if kind != "func_literal":
            self.declared.append(function)
        name = _text(function.child_by_field_name("name"))
        inner = _Scope(scope, name or scope.name)
        parameters = function.child_by_field_name("parameters")
        inner.testing = parameters is not None and self._takes_a_test(parameters)
        if name and kind != "func_literal" and not inner.testing:
            self._fakes.of(function, name, inner)
        if parameters is not None and parameters.named_child_count:
            # every name among them (a parameter's, or one of a function type's)
            for identifier in captured(parser(), parameters, "(identifier) @i").get("i", []):
                inner.opaque.add(_text(identifier))
        if name and parameters is not None:
            inner.parameters = _parameter_places(parameters)
            inner.callee = (name, kind == "method_declaration")
        if name and kind == "function_declaration":
            self.functions[name] = function
        if kind == "method_declaration":
            inner.receiver = _receiver(function)
        body = function.child_by_field_name("body")
        if body is None:
            open_.append((function.end_byte, scope, None, True))
            return
        self.scope_of[body.id] = inner
        open_.append((function.end_byte, scope, None, True))  # after its body: nothing
        open_.append((body.end_byte, inner, None, False))
        open_.append((body.start_byte, scope, None, True))  # its header

    def _takes_a_test(self, parameters: Node) -> bool:
        """Whether a function's parameters include a test's handle: a `T`, `TB`, `B` or
        `F` of the standard `testing` package (as the file names it), by value or
        pointer."""
        named = {name for name, path in self.imports.items() if path == "testing"}
        if not named:
            return False
        for node in walk(parameters):
            if node.type == "qualified_type":
                package = _text(node.child_by_field_name("package"))
                if package in named and _text(node.child_by_field_name("name")) in _TEST_TYPES:
                    return True
        return False

    def _string_literal(self, literal: Node, scope: _Scope) -> None:
        """A URL the file names (`"http://..."`, or the expression it begins), and a
        registry's target (`consul://...`)."""
        value = self._string(literal)
        if value.lower().startswith(("http://", "https://")):
            built = self._built_from(literal)
            if built is literal:
                self.facts.urls.append((value, self.loc(literal)))
            else:  # `"http://" + host`: the URL is the whole text, read once bound
                self.url_expressions.append((built, scope))
        scheme = registry_scheme(value)
        if scheme is not None:
            how = f"{scheme[0]}:// target"
            self.facts.registry_dials.append(RegistryDial(self.loc(literal), scheme[1], how))

    def _health_check(self, method: Node) -> None:
        """A hand-written health service: a `Check` method that answers with a
        HealthCheckResponse. It can fail unless every status it writes is SERVING."""
        if _text(method.child_by_field_name("name")) != "Check":
            return
        result = _text(method.child_by_field_name("result"))
        body = method.child_by_field_name("body")
        if "HealthCheckResponse" not in result or body is None:
            return
        receiver = method.child_by_field_name("receiver")
        types = (
            [_text(n) for n in walk(receiver) if n.type == "type_identifier"] if receiver else []
        )
        statuses = [
            _text(value)
            for element in walk(body)
            if element.type == "keyed_element"
            for key, value in [_keyed(element)]
            if _text(key) == "Status"
        ]
        always = bool(statuses) and all(
            status.endswith("HealthCheckResponse_SERVING") for status in statuses
        )
        self.facts.health_servicers.append(
            HealthServicer(self.loc(method), types[0] if types else "Check", not always)
        )

    def _import(self, spec: Node) -> None:
        path, name = import_spec(spec)
        self.import_paths.append(path)
        registry = _registry_resolver(path)
        if registry is not None:
            how = f"imports {path}"
            self.facts.registry_dials.append(RegistryDial(self.loc(spec), registry, how))
        if name == ".":
            self.dot_imports.append(path)
        elif name is not None:
            self.imports[name] = path

    def _assign(self, node: Node, scope: _Scope, guard: Node | None) -> None:
        left = _items(node.child_by_field_name("left"))
        right = _items(node.child_by_field_name("right"))
        operator = _text(node.child_by_field_name("operator")) or ":="
        names = [_text(item) if item.type == "identifier" else "" for item in left]
        if operator == "=":
            self._write(left, right, scope)
            self._undeclared(node, names, scope)
        if len(right) == 1 and len(left) == 2 and right[0].type == "call_expression":
            # `v, ok := os.LookupEnv("X")` / `conn, err := grpc.Dial(...)`: the first name
            # (`db, err = sql.Open(...)`: the variable's own scope's, a package's maybe)
            homes = [scope.lookup(n) if operator == "=" else None for n in names]
            if names[0]:
                (homes[0][0] if homes[0] else scope).bindings[names[0]].append(right[0])
            if names[1]:
                (homes[1][0] if homes[1] else scope).opaque.add(names[1])
                scope.tells[names[1]] = names[0]
            return
        if len(left) != len(right):
            scope.opaque.update(n for n in names if n)
            return
        for name, value in zip(names, right, strict=True):
            if not name or name == "_":
                continue
            if operator not in ("=", ":="):
                scope.opaque.add(name)  # `x += ...`
            elif guard is not None and _guards_default(guard, name, scope):
                home = scope.lookup(name)
                (home[0] if home else scope).defaults[name].append(value)
            else:
                home = scope.lookup(name) if operator == "=" else None
                (home[0] if home else scope).bindings[name].append(value)

    def _undeclared(self, node: Node, names: list[str], scope: _Scope) -> None:
        """`DB = db` in a function, `DB` declared nowhere before it in the file (nor a named
        result): a package variable, of another file of the package or later in this one."""
        if scope.parent is None:
            return
        results: set[str] | None = None
        for name in names:
            if not name or name == "_" or scope.lookup(name) is not None:
                continue
            if results is None:
                body = _enclosing_body(node)
                results = _result_names(body) if body is not None else set()
            if name not in results:  # bound in this scope by `_assign`, as if declared
                self.undeclared.add((id(scope), name))

    def _write(self, left: list[Node], right: list[Node], scope: _Scope) -> None:
        """Record what a field (`s.addr = v`) or a pointer parameter (`*target = v`) is
        given: a field's value is what the file writes to it, a pointer parameter's is
        what its caller's variable gets (`mustMapEnv(&svc.addr, "ADDR")`)."""
        if len(right) == 1 and len(left) == 2 and right[0].type == "call_expression":
            pairs = [(left[0], right[0])]  # `*conn, err = grpc.NewClient(...)`
        elif len(left) == len(right):
            pairs = list(zip(left, right, strict=True))
        else:
            return
        for target, value in pairs:
            if target.type == "selector_expression":
                field = _text(target.child_by_field_name("field"))
                self.field_writes[field].append((value, scope))
                self.assigned.add(field)
                operand = target.child_by_field_name("operand")
                if operand is not None and operand.type == "selector_expression":
                    holder = _text(operand.child_by_field_name("field"))
                    self.held_writes[(field, holder)].append((value, scope))
            elif (
                target.type == "unary_expression"
                and _text(target.child_by_field_name("operator")) == "*"
            ):
                operand = target.child_by_field_name("operand")
                home = _function_scope(scope)
                if operand is None or operand.type != "identifier" or home is None:
                    continue
                index = home.parameters.get(_text(operand))
                if index is not None and home.callee is not None:
                    self.pointer_writes[home.callee].append((index, value, scope))

    def _declare(self, spec: Node, scope: _Scope) -> None:
        names = [_text(c) for c in spec.children_by_field_name("name") if c.type == "identifier"]
        values = _items(spec.child_by_field_name("value"))
        if values and len(values) == len(names):
            for name, value in zip(names, values, strict=True):
                scope.bindings[name].append(value)
        elif (
            not values
            and (kind := spec.child_by_field_name("type")) is not None
            and (
                kind.type == "slice_type"
                # `var lc net.ListenConfig`: the zero config, whose `Listen` is net.Listen's
                or (kind.type == "qualified_type" and self._type_name(kind) == _LISTEN_CONFIG)
            )
        ):
            for name in names:  # `var opts []grpc.ServerOption`: known to be empty
                scope.bindings[name].append(kind)
        else:
            scope.opaque.update(names)
            if not values and scope is self.package:
                self.zero_declared += names  # what `init` assigns, maybe (_set_in_init)

    # -- names -----------------------------------------------------------------------------

    def qualified(self, node: Node | None) -> str | None:
        """`google.golang.org/grpc.Dial` for `grpc.Dial` (or `g.Dial` after an aliased
        import, or `Dial` after a dot-import of grpc); None for local names."""
        if node is None:
            return None
        if node.type == "selector_expression":
            operand, member = node.child_by_field_name("operand"), node.child_by_field_name("field")
            if operand is not None and operand.type == "identifier":
                package = self.imports.get(_text(operand))
                if package is not None:
                    return f"{package}.{_text(member)}"
            return None
        if node.type == "identifier" and self.dot_imports:
            name = _text(node)
            for package in self.dot_imports:
                if f"{package}.{name}" in _KNOWN:
                    return f"{package}.{name}"
        return None

    def _qualified_call(self, shape: _Called) -> str | None:
        """`qualified` of a call's function, from what its `_Called` read."""
        if shape.kind == "selector_expression":
            if shape.operand_kind == "identifier":
                package = self.imports.get(shape.receiver)
                if package is not None:
                    return f"{package}.{shape.member}"
            return None
        return self.qualified(shape.function) if self.dot_imports else None

    def _callee_of(self, shape: _Called, scope: _Scope) -> str | None:
        """What a call calls, qualified (`qualified`), or the package's function a package
        variable holds (`sqlxConnect = sqlx.Connect`, kept so that tests can swap it):
        when the file binds it to nothing else."""
        function = shape.function
        found = self._qualified_call(shape)
        if found is not None or function is None or shape.kind != "identifier":
            return found
        home = scope.lookup(shape.text)
        if home is None or home[0] is not self.package or len(home[1]) != 1:
            return None
        held = home[1][0]
        return self.qualified(held) if held.type == "selector_expression" else None

    def _short(self, name: str) -> str:
        """`grpc.Dial` for `google.golang.org/grpc.Dial`: how messages name it."""
        package, _, member = name.rpartition(".")
        return f"{package_name(package)}.{member}"

    def loc(self, node: Node) -> Loc:
        row, column = node.start_point
        text = self.lines[row] if row < len(self.lines) else b""
        return Loc(self.path, row + 1, len(text[:column].decode("utf-8", "replace")) + 1)

    # -- values ----------------------------------------------------------------------------

    def value(self, node: Node | None, scope: _Scope, depth: int = 0) -> Any:
        """A literal, an EnvRef, or UNKNOWN (past the reading's budget too: budget.py).
        Durations are in milliseconds. While `remembered` is kept (_export), a value asked
        again (the same node, scope, depth and `choosing`, with no call's parameters
        pinned by `only`) is the one computed before, and costs the budget the steps it
        took then: the same value, and the same budget left, as computing it again (it is
        computed again where the budget left could not pay them all, and kept only when
        no step failed for want of budget; a mutable value is never kept)."""
        remembered = self.remembered
        if remembered is None or node is None or self.only:
            return self._value(node, scope, depth)
        key = (node.id, id(scope), depth, self.choosing)
        known = remembered.get(key)
        budget = self.budget
        if known is not None and budget.left >= known[1]:
            budget.left -= known[1]
            return known[0]
        before = budget.left
        value = self._value(node, scope, depth)
        if budget.left >= 0 and not isinstance(value, dict | list | set):
            remembered[key] = (value, before - budget.left)
        return value

    def _value(self, node: Node | None, scope: _Scope, depth: int) -> Any:
        if node is None or not self.budget.step(depth):
            return UNKNOWN
        kind = node.type
        if kind in ("interpreted_string_literal", "raw_string_literal"):
            return self._string(node)
        if kind == "int_literal":
            try:
                return int(_text(node).replace("_", ""), 0)
            except ValueError:
                return UNKNOWN
        if kind == "float_literal":
            try:
                return float(_text(node).replace("_", ""))
            except ValueError:
                return UNKNOWN
        if kind in ("true", "false"):
            return kind == "true"
        if kind == "parenthesized_expression":
            return self.value(node.named_children[0], scope, depth + 1)
        if kind == "identifier":
            return self._name(_text(node), scope, depth, node)
        if kind == "selector_expression":
            name = self.qualified(node)
            operand = node.child_by_field_name("operand")
            if name is not None and operand is not None and scope.lookup(_text(operand)):
                name = None  # a parameter or variable named as a package (`config.URL`)
            if name is None:
                operand = node.child_by_field_name("operand")
                field = _text(node.child_by_field_name("field"))
                held = self._package_variable_field(operand, field, scope)
                if held is not None:  # `utils.Config.AuthPort`
                    return held
                ranged = self._ranged(operand, scope, depth, field)
                if ranged is not None:  # `b.addr` of `for _, b := range backends`
                    return ranged
                passed = self._passed_field(operand, field, scope, depth, node)
                if passed is not None:
                    return passed
                within = operand.child_by_field_name("field") if operand is not None else None
                found = self._field(field, depth, _text(within))
                if found is UNKNOWN and operand is not None:
                    found = self._loaded_field(operand, field, scope)
                if found is UNKNOWN and operand is not None:
                    found = self._receiver_field(operand, field, scope)
                if found is UNKNOWN and operand is not None:
                    # `c.Config.Upstreams.Addr`: the field of what the shorter read holds
                    return self._nested_field(operand, field, scope, depth)
                return found
            package, _, member = name.rpartition(".")
            if name not in DURATIONS and not _standard(package) and member[:1].isupper():
                # another package's constant (`config.Addr`): its file's export, once read
                self.facts.deferred = True
                return PackageValue(package, member)
            return DURATIONS.get(name, _MATH_CONSTANTS.get(name, UNKNOWN))
        if kind == "unary_expression" and _text(node.child_by_field_name("operator")) in "&*":
            # `*addr` of `addr := flag.String(...)`: the pointer stands for its value
            return self.value(node.child_by_field_name("operand"), scope, depth + 1)
        if kind == "binary_expression":
            left = self.value(node.child_by_field_name("left"), scope, depth + 1)
            right = self.value(node.child_by_field_name("right"), scope, depth + 1)
            operator = _text(node.child_by_field_name("operator"))
            if _number(left) and _number(right):
                return _arithmetic(operator, left, right)
            if operator == "+" and isinstance(right, Unknown) and _path_begun(left):
                # `base + "/orders/" + id`: the address is the base's, the rest shown `...`
                return joined([left, _UNREAD_PATH])
            return joined([left, right]) if operator == "+" else UNKNOWN
        if kind == "call_expression":
            return self._call_value(node, scope, depth)
        if kind == "composite_literal":
            return self._composite(node, scope, depth)
        return UNKNOWN

    def _name(self, name: str, scope: _Scope, depth: int, use: Node | None = None) -> Any:
        found = scope.lookup(name)
        if found is None:
            return UNKNOWN
        home, bound = found
        if not bound and name in home.parameters:
            passed = self._passed(home, name, depth)
            defaults = home.defaults.get(name, [])
            return self._defaulted(passed, defaults, home, depth) if defaults else passed
        if not bound and use is not None and name in home.ranged:
            ranged = self._ranged(use, scope, depth, None)
            return UNKNOWN if ranged is None else ranged
        if len(bound) != 1 or name in home.opaque:
            return UNKNOWN
        value = self.value(bound[0], home, depth + 1)
        defaults = home.defaults.get(name, [])
        if isinstance(value, EnvRef) and value.default is None and len(defaults) == 1:
            default = self.value(defaults[0], home, depth + 1)
            if _number(default) and isinstance(default, int):
                default = str(default)  # a port's number, as the environment would spell it
            return EnvRef(value.name, default if isinstance(default, str) else UNKNOWN)
        return UNKNOWN if defaults else value

    def _ranged(self, use: Node | None, scope: _Scope, depth: int, member: str | None) -> Any:
        """A `range` variable's value (`addr` of `for _, addr := range addrs`), or the
        field `member` of it (`b.addr` of `for _, b := range backends`), where the loop
        ranges over a literal: written in place (`range map[string]string{...}`), or the
        one value of a variable (of the function or the package) or of a field that
        nothing changes in place. Each of its values (the map's, or its keys for the
        first variable; the slice's elements), at most MAX_CHOICES, are what the variable
        may be (facts.one_of); a struct's field is read by its key, or by its place in
        the struct type (the literal's, or a type of the file). None where `use` is no
        `range` variable; UNKNOWN where its loop is over anything else, or the function
        changes it (`addr += ":80"`)."""
        if use is None or use.type != "identifier":
            return None
        name = _text(use)
        found = scope.lookup(name)
        if found is None or found[1] or name in found[0].parameters:
            return None
        clauses = found[0].ranged.get(name)
        if not clauses:
            return None
        if len(clauses) != 1 or self._rewritten(use, name):
            return UNKNOWN  # two loops' variables, or one the body changes
        clause, place = clauses[0]
        held = self._ranged_literal(clause.child_by_field_name("right"), found[0])
        if held is None:
            return UNKNOWN
        literal, home = held
        elements = self._range_elements(literal, place)
        if elements is None or len(elements) > MAX_CHOICES:
            return UNKNOWN
        element_type, nodes = elements
        values = [
            self._member_of(node, element_type, member, home, depth)
            if member is not None
            else self.value(node, home, depth + 1)
            for node in nodes
        ]
        value = one_of(values)
        return value if self.choosing else settled(value)

    def _rewritten(self, use: Node, name: str) -> bool:
        """Whether the function that uses `name` at `use` assigns it, steps it, declares
        it again or changes it in place (`_changed_in_place`)."""
        body = self._top_level(use).child_by_field_name("body")
        if body is None:
            return True
        key = (body.id, name, "rewritten")
        if key not in self.dropped:
            self.dropped[key] = any(
                _in_place(node) or _written(node) for node in self.identifiers_of(body)[name]
            )
        return self.dropped[key]

    def _ranged_literal(self, node: Node | None, scope: _Scope) -> tuple[Node, _Scope] | None:
        """The composite literal a `range` ranges over, with the scope it is read in: the
        expression itself, a variable bound once to one (a function's or the package's)
        that the file does not change in place, or a field the file writes once, with
        one (`&gateway{backends: map[string]string{...}}`)."""
        if node is None:
            return None
        node = _unwrap_address(node)
        if node.type == "identifier":
            name = _text(node)
            found = scope.lookup(name)
            if found is None or len(found[1]) != 1 or name in found[0].opaque:
                return None
            home = found[0]
            if home.defaults.get(name) or self._changed_anywhere(node, name, home):
                return None
            scope, node = home, _unwrap_address(found[1][0])
        elif node.type == "selector_expression":
            member = _text(node.child_by_field_name("field"))
            writes = self.field_writes.get(member, [])
            if len(writes) != 1 or member in self.field_passes or self.tagged.get(member):
                return None
            node, scope = _unwrap_address(writes[0][0]), writes[0][1]
        return (node, scope) if node.type == "composite_literal" else None

    def _changed_anywhere(self, node: Node, name: str, home: _Scope) -> bool:
        """Whether a variable is changed in place where it can be: in the function that
        uses it at `node`, or (a package's) anywhere in the file."""
        if home is not self.package:
            return self._changed_in_place(node, name)
        key = (self.root.id, name, "in place")
        if key not in self.dropped:
            uses = self.identifiers_of(self.root).get(name, [])
            self.dropped[key] = any(_in_place(use) for use in uses)
        return self.dropped[key]

    @staticmethod
    def _range_elements(literal: Node, place: int) -> tuple[Node | None, list[Node]] | None:
        """The type of a map's or a slice's elements and the nodes a `range` variable at
        `place` takes from it: the map's values (1) or keys (0), the slice's elements (1;
        its index, 0, is none). None for any other literal."""
        kind = literal.child_by_field_name("type")
        body = literal.child_by_field_name("body")
        if kind is None or body is None or body.named_child_count > 4 * MAX_CHOICES:
            return None  # (read again for each loop over it: its size is not)
        elements = [c for c in body.named_children if c.type != "comment"]
        if kind.type == "map_type":
            pairs = [_keyed(e) for e in elements if e.type == "keyed_element"]
            if len(pairs) != len(elements):
                return None
            return kind.child_by_field_name("value"), [pair[place] for pair in pairs]
        if kind.type in ("slice_type", "array_type", "implicit_length_array_type") and place:
            nodes = [_keyed(e)[1] if e.type == "keyed_element" else _unwrap(e) for e in elements]
            return kind.child_by_field_name("element"), nodes
        return None

    def _member_of(
        self, node: Node, element_type: Node | None, member: str, scope: _Scope, depth: int
    ) -> Any:
        """The field `member` of a struct literal among a map's or a slice's elements
        (`{addr: "a:1"}`, `{"a:1", dial}`, `&backend{...}`): by its key, or by its place
        among the fields of its type."""
        node = _unwrap_address(node)
        if node.type == "composite_literal":
            element_type = node.child_by_field_name("type")
            node = node.child_by_field_name("body") or node
        if node.type != "literal_value":
            return UNKNOWN
        elements = [c for c in node.named_children if c.type != "comment"]
        keyed = [_keyed(e) for e in elements if e.type == "keyed_element"]
        if keyed:
            held = [value for key, value in keyed if _text(key) == member]
            return self.value(held[0], scope, depth + 1) if len(held) == 1 else UNKNOWN
        names = self._struct_fields(element_type)
        if names is None or len(names) != len(elements) or names.count(member) != 1:
            return UNKNOWN
        return self.value(_unwrap(elements[names.index(member)]), scope, depth + 1)

    def _struct_fields(self, kind: Node | None) -> list[str] | None:
        """The names of a struct type's fields, in order (an embedded one's by its type):
        a struct type written in place, or one the file declares by that name."""
        while kind is not None and kind.type in ("pointer_type", "parenthesized_type"):
            kind = kind.named_children[-1] if kind.named_children else None
        if kind is not None and kind.type == "type_identifier":
            if self.struct_types is None:
                self.struct_types = {}
                query = "(type_spec type: (struct_type) @s)"
                for struct in captured(parser(), self.root, query).get("s", []):
                    spec_name = struct.parent.child_by_field_name("name") if struct.parent else None
                    self.struct_types.setdefault(_text(spec_name), struct)
            kind = self.struct_types.get(_text(kind))
        if kind is None or kind.type != "struct_type":
            return None
        names = self.field_names.get(kind.id)
        if names is None:  # read once a struct type (not once an element)
            names = self.field_names[kind.id] = []
            for list_ in kind.named_children:
                for declaration in list_.named_children:
                    if declaration.type != "field_declaration":
                        continue
                    named = declaration.children_by_field_name("name")
                    kind_name = _text(declaration.child_by_field_name("type")).rpartition(".")[2]
                    names += [_text(n) for n in named] or [kind_name.lstrip("*")]
        return names

    def choices(self, node: Node | None, scope: _Scope) -> list[Any]:
        """The values an address may be, one for each value a parameter it is made of is
        given by its function's calls (facts.Alternatives): a fact is made for each."""
        self.choosing = True
        try:
            return choices(self.value(node, scope))
        finally:
            self.choosing = False

    def _passed(self, home: _Scope, name: str, depth: int) -> Any:
        """A parameter's value: the join of what the file's calls of its function pass
        (facts.one_of), each followed in the caller's scope one step deeper. A parameter
        whose function no call of the file reaches is unknown (no guess)."""
        if home.callee is None:
            return UNKNOWN
        index = home.parameters[name]
        only = self.only.get(home.callee)
        function, method = home.callee
        if only is None and not method and not self._callers(home):
            # called from other files only (`main.go`'s `mmf.Start(addr)`): their calls'
            # values, joined once every file is read (imported.py)
            self.facts.deferred = True
            return Passed(os.path.dirname(os.path.normpath(self.path)), function, index)
        values = []
        # the facts of one caller (_addresses), else every call of the function
        for call, caller in [only] if only is not None else self._callers(home):
            args = self._called(call).arguments
            if any(a.type == "variadic_argument" for a in args[: index + 1]):
                return UNKNOWN
            values.append(
                self.value(args[index], caller, depth + 1) if index < len(args) else UNKNOWN
            )
        value = one_of(values)
        return value if self.choosing else settled(value)

    def _defaulted(self, passed: Any, defaults: list[Node], home: _Scope, depth: int) -> Any:
        """A parameter the function sets anew when it is empty (`if conf == "" { conf =
        defaultConfig }`): where the callers pass `""`, the value set; where they pass
        another value k8slb reads, theirs; else (unread, or passed from another file) one
        of the two, as a parameter given several values is (unknown where one must stand)."""
        if len(defaults) != 1:
            return UNKNOWN
        default = self.value(defaults[0], home, depth + 1)
        if isinstance(passed, Passed) and not passed.member and isinstance(default, str):
            return replace(passed, empty=default)  # resolved with its callers' values
        value = or_empty(passed, default)
        return value if self.choosing else settled(value)

    def _passed_field(
        self, operand: Node | None, field: str, scope: _Scope, depth: int, read: Node
    ) -> Passed | None:
        """`config.AuthAddr` of a parameter `config` whose function only other files call
        (`grpc.NewClients(grpc.ClientConfig{AuthAddr: getEnv(...)})` in `main.go`): the
        field their struct literals set; None where the file writes the field itself (a
        write of this very read, `&Jobs{AuthAddr: config.AuthAddr}`, is another struct's)."""
        if operand is None or operand.type != "identifier":
            return None
        writes = [w for w, _ in self.field_writes.get(field, []) if w.id != read.id]
        if writes or self.tagged.get(field) or self.field_passes.get(field):
            return None
        found = scope.lookup(_text(operand))
        if found is None or found[1] or _text(operand) not in found[0].parameters:
            return None
        passed = self._passed(found[0], _text(operand), depth)
        return replace(passed, member=field) if isinstance(passed, Passed) else None

    def _package_variable_field(
        self, operand: Node | None, field: str, scope: _Scope
    ) -> PackageValue | None:
        """A field of another package's variable (`utils.Config.AuthPort`): that package's
        `value Config.AuthPort` export, once read (export_tagged_variables)."""
        if operand is None or operand.type != "selector_expression" or not field[:1].isupper():
            return None
        qualified = self.qualified(operand)
        head = operand.child_by_field_name("operand")
        if qualified is None or head is None or scope.lookup(_text(head)):
            return None
        package, _, variable = qualified.rpartition(".")
        if _standard(package) or not variable[:1].isupper():
            return None
        self.facts.deferred = True
        return PackageValue(package, f"{variable}.{field}")

    def _field(self, field: str, depth: int, within: str = "") -> Any:
        """A field's value: the join of what the file writes to it (facts.one_of), and of
        what a function writes through the pointer a call hands it (`mustMapEnv(&s.addr,
        "ADDR")`: that call's own arguments)."""
        # an env library's tags: those of the struct that the field read is in, when a
        # field names it (`cfg.MySQL.Host`), else those of named types' structs
        tags = self.tagged.get(field, {})
        tagged = tags.get(within) or tags.get("", [])
        if len(tagged) > MAX_CHOICES:  # more variables than a value may be one of
            return UNKNOWN
        writes = self.field_writes.get(field, [])
        # `s.metadata.addr`: the writes known to be in a `metadata` field, where there are
        # (`s.online.addr` is another address)
        held = self.held_writes.get((field, within), []) if within else []
        values = [self.value(value, scope, depth + 1) for value, scope in held or writes] + tagged
        for call, at, call_scope in self.field_passes.get(field, []):
            function = call.child_by_field_name("function")
            callee = (
                _called_name(function),
                function is not None and function.type == "selector_expression",
            )
            for index, value, scope in self.pointer_writes.get(callee, []):
                if index != at:
                    continue
                before = self.only.get(callee)
                self.only[callee] = (call, call_scope)
                try:
                    values.append(self.value(value, scope, depth + 1))
                finally:
                    if before is None:
                        del self.only[callee]
                    else:
                        self.only[callee] = before
        value = one_of(values)
        return value if self.choosing else settled(value)

    def _loaded_field(self, operand: Node, field_name: str, scope: _Scope) -> Any:
        """A field of what another package's function returned (`cfg.Backend.Address`
        after `cfg, err := config.Load()`): that package's export for it, once every file
        is read (PackageField); UNKNOWN for any other."""
        within = ""
        if operand.type == "selector_expression":  # the field that holds it
            within = _text(operand.child_by_field_name("field"))
            operand = operand.child_by_field_name("operand") or operand
        returned = self._returned_by_package(operand, scope)
        if returned is None:
            return UNKNOWN
        self.facts.deferred = True
        return PackageField(returned[0], f"{within}.{field_name}", returned[1])

    def _returned_by_package(self, node: Node, scope: _Scope) -> tuple[str, str] | None:
        """(package, function) of the exported function of another (not the standard)
        package whose result a variable is bound to once (`cfg, err := config.Load()`),
        or ("", function) of its own package's function another file declares."""
        found = scope.lookup(_text(node)) if node.type == "identifier" else None
        if found is None or len(found[1]) != 1 or found[1][0].type != "call_expression":
            return None
        shape = self._called(found[1][0])
        own = self._own_package_function(shape, found[0])
        if own is not None:  # `cfg, err := loadConfig()`, declared by another file
            return "", own
        name = self._qualified_call(shape) or ""
        package, _, function = name.rpartition(".")
        if not package or _standard(package) or not function[:1].isupper():
            return None
        return package, function

    def _own_package_function(self, shape: _Called, scope: _Scope) -> str | None:
        """The name of a function a call calls that is its package's own but declared in
        another file (`LoadConfig()` of `utils.go`, called in `main.go`): Go gives a
        package's files one namespace, so a name this file neither declares nor binds,
        nor a builtin, is another file's (None for any other call)."""
        if shape.kind != "identifier":
            return None
        name = shape.text
        if name in self.functions or name in _BUILTINS or scope.lookup(name):
            return None
        return name

    def _nested_field(self, operand: Node, field_name: str, scope: _Scope, depth: int) -> Any:
        """The field `field_name` of a struct a selector reads (`c.Config.Upstreams` of
        `c.Config.Upstreams.Addr`), as that read's own value holds it: a struct literal's
        field, or the same field one step further along a struct a parameter is given
        (Passed), another package's function fills and returns (PackageField) or a
        receiver's field holds (StructField), each joined once every file is read;
        UNKNOWN for any other."""
        if operand.type != "selector_expression":
            return UNKNOWN
        holder = self.value(operand, scope, depth + 1)
        values = [_field_in(choice, field_name) for choice in choices(holder)]
        value = one_of(values)
        return value if self.choosing else settled(value)

    def _receiver_field(self, operand: Node, field_name: str, scope: _Scope) -> Any:
        """`a.OrderURL` of a method's receiver `a`, a field the file never writes (nor a
        tag, nor a pointer handed out fills: `_field` found none): what the struct
        literals of the receiver's type in the package's other files set (StructField),
        once every file is read; UNKNOWN for any other operand."""
        if operand.type != "identifier":
            return UNKNOWN
        name = _text(operand)
        home: _Scope | None = scope
        for _ in range(_SCOPE_DEPTH):  # the receiver, unless a name within shadows it
            if home is None or name in home.bindings or name in home.opaque:
                return UNKNOWN
            if home.receiver is not None:
                break
            home = home.parent
        if home is None or home.receiver is None or home.receiver[0] != name:
            return UNKNOWN
        if field_name in self.field_writes or field_name in self.field_passes:
            return UNKNOWN  # written here, by some struct: `_field` could not tell it
        self.facts.deferred = True
        folder = os.path.dirname(os.path.normpath(self.path))
        return StructField(folder, home.receiver[1], field_name)

    def whole_struct(self, node: Node, scope: _Scope) -> Any:
        """An argument that is a variable bound once to what another package's function
        returns (`cfg` of `cfg, err := config.FromEnv()`, passed on whole: `app.Run(cfg)`):
        that struct, for the callee's reads of its fields (PackageField with no path);
        UNKNOWN for any other."""
        returned = self._returned_by_package(node, scope)
        if returned is None:
            return UNKNOWN
        self.facts.deferred = True
        return PackageField(returned[0], "", returned[1])

    def _built_from(self, literal: Node) -> Node:
        """The expression an `http://` literal begins: `"http://" + host + ":80"`,
        `fmt.Sprintf("http://%s", host)`; the literal itself when it stands alone."""
        node = literal
        for _ in range(MAX_DEPTH):
            parent = node.parent
            if parent is None:
                break
            if parent.type == "binary_expression" and parent.child_by_field_name("left") == node:
                if _text(parent.child_by_field_name("operator")) != "+":
                    break
                node = parent
            elif parent.type == "argument_list" and parent.named_children[0] == node:
                call = parent.parent
                if call is None or self._qualified_call(self._called(call)) != "fmt.Sprintf":
                    break
                node = call
            elif parent.type == "parenthesized_expression":
                node = parent
            else:
                break
        return node

    def _call_value(self, call: Node, scope: _Scope, depth: int) -> Any:
        shape = self._called(call)
        name = self._qualified_call(shape) or ""
        args = shape.arguments
        values = [self.value(a, scope, depth + 1) for a in args]
        if name in ("os.Getenv", "os.LookupEnv") and values and isinstance(values[0], str):
            return EnvRef(values[0], None)
        if name == "fmt.Sprintf" and values and isinstance(values[0], str):
            return _sprintf(values[0], values[1:])
        if (
            shape.kind == "identifier"
            and len(values) >= 2
            and isinstance(values[0], str)
            and self._env_helper(shape.name)  # `getEnv("ADDR", "backend:50051")`
        ):
            return EnvRef(values[0], values[1] if isinstance(values[1], str) else UNKNOWN)
        if len(values) == 2 and isinstance(values[0], str) and _ENV_NAME.match(values[0]):
            helper = self._other_env_helper(shape, name)
            if helper is not None:  # `helpers.GetEnv("ADDR", "backend:50051")`
                self.facts.deferred = True
                default = values[1] if isinstance(values[1], str) else UNKNOWN
                return PackageEnv(*helper, values[0], default)
        if name == "strings.TrimSpace" and len(values) == 1:
            text = values[0]  # a variable's value trimmed: the address is the same
            return text.strip() if isinstance(text, str) else text
        if name in _SLASH_TRIMS and len(values) == 2 and values[1] == "/":
            # a URL's trailing slash cut (`strings.TrimRight(baseURL, "/")`): its address
            # is the same, whatever the environment gives
            text = values[0]
            return text.rstrip("/") if isinstance(text, str) else text
        if (
            name.startswith(f"{_VIPER}.")
            and name[len(_VIPER) + 1 :] in _VIPER_GETS
            and len(values) == 1
            and isinstance(values[0], str)
        ):
            self.facts.deferred = True  # the program's other packages say what it reads
            return ViperKey(values[0])
        if name == "strconv.Atoi" and len(values) == 1 and isinstance(values[0], EnvRef | ViperKey):
            return values[0]  # a number read from the environment prints as it was given
        if (
            shape.kind == "identifier"
            and len(values) == 1
            and isinstance(values[0], EnvRef | ViperKey)
            and self._number_parser(shape.name)
        ):
            return values[0]  # `convertPort(viper.GetString("PORT"))`: strconv.Atoi's, kept
        if name == "strconv.Itoa" and values and isinstance(values[0], int | FlagRef | ViperKey):
            return str(values[0]) if isinstance(values[0], int) else values[0]
        if name == "time.Duration" and values and _number(values[0]):
            return values[0]  # a count that a unit multiplies: time.Duration(5) * time.Minute
        if shape.kind == "identifier" and not args:
            made = self._made_by(shape.name, depth)
            if made is not None:  # `upstreamsFromEnv()`: the struct it fills and returns
                return made
        elif shape.kind == "identifier" and scope.lookup(shape.name) is None:
            returned = self._function_result(call, shape.name, scope, depth)
            if returned is not None:  # `address("ORDERS_HOST", "ORDERS_PORT")`
                return returned
        flag = self._flag(call)
        if flag is not None:
            at_name, at_default = flag
            given = values[at_name] if at_name < len(values) else UNKNOWN
            default = values[at_default] if at_default < len(values) else UNKNOWN
            if isinstance(default, int) and not isinstance(default, bool):
                default = str(default)  # an integer flag's default, as its args would spell it
            if isinstance(given, str):
                return FlagRef(given, default if isinstance(default, str) else UNKNOWN)
        if (
            len(values) == 1
            and shape.kind == "selector_expression"
            and self._cli_names()
            # urfave/cli's `c.String("addr")` on the context the library hands an action
            and flag_read(call, shape.member, shape.operand, self._cli_names())
        ):
            return read_value(self._cli_flags(), values[0]) or UNKNOWN
        return UNKNOWN

    def _cli_names(self) -> set[str]:
        """The names the file imports urfave/cli by, read once."""
        if self.cli_imported is None:
            self.cli_imported = cli_names(self.imports)
        return self.cli_imported

    def _cli_flags(self) -> dict[str, FlagRef]:
        """The file's urfave/cli flag definitions, by name (parse_cli_flags.py), read once."""
        if self.cli_defined is None:
            literals = (
                (literal, lambda node, scope=scope: self.value(node, scope))
                for literal, scope in self.literals
            )
            self.cli_defined = cli_flags(literals, self._cli_names())
        return self.cli_defined

    def _once(self, function: str) -> bool:
        """Whether the function runs once a process: by its name (ONCE), or as the action
        a CLI library runs (`app.Action = run`, cobra's `RunE: serve`)."""
        if _runs_once(function):
            return True
        if self.cli_actions is None:
            self.cli_actions = set()
            if set(self.imports.values()) & (CLI_PACKAGES | {COBRA}):
                query = "(assignment_statement) @a"
                assignments = captured(parser(), self.root, query).get("a", [])
                literals = (literal for literal, _ in self.literals)
                self.cli_actions = actions(literals, assignments, self.imports)
        return function in self.cli_actions

    def _action_body(self, body: Node | None) -> bool:
        """Whether a body is that of a function literal a CLI library runs as a command's
        action (`Run: func(...) {...}`): it runs once a process, as a named action does."""
        function = body.parent if body is not None else None
        if function is None or function.type != "func_literal":
            return False
        return action_literal(function, self.imports)

    def _made_by(self, name: str, depth: int) -> dict[str, Any] | None:
        """The fields of the struct the file's function `name`, of no parameters, fills
        and returns (`func upstreamsFromEnv() Upstreams { return Upstreams{Addr:
        getEnv("ADDR", "")} }`, or one `_filled` reads), as a call of it gives them: a
        configuration loader's piece, put in the struct it loads (`Upstreams:
        upstreamsFromEnv()`). None for any other function, and for one that leads back to
        itself."""
        declaration = self.functions.get(name)
        parameters = declaration.child_by_field_name("parameters") if declaration else None
        if declaration is None or parameters is None or parameters.named_child_count:
            return None
        if name in self.making or depth >= MAX_DEPTH:
            return None
        self.making.add(name)
        try:
            fields = self._filled(declaration, depth + 1)
        finally:
            self.making.discard(name)
        return fields or None

    def _function_result(self, call: Node, name: str, scope: _Scope, depth: int) -> Any:
        """What a call of the file's function `name`, given arguments, returns (the first
        result), its parameters read as this call's arguments (`address(host, port string)
        string { return fmt.Sprintf("%s:%s", os.Getenv(host), os.Getenv(port)) }`, called
        as `address("ORDERS_HOST", "ORDERS_PORT")`): the value its returns all give, a
        return of `""` (a failure's) left out where another gives one. None where they give
        different values (which one the program takes is its own choice: an env helper's
        fallback is read by `_env_helper`), for any other call, and for one that leads back
        to itself."""
        declaration = self.functions.get(name)
        if declaration is None or declaration.type != "function_declaration":
            return None
        if name in self.making or depth >= MAX_DEPTH:
            return None
        returns = self._returned_values(declaration)
        if not returns or len(returns) > MAX_CHOICES:
            return None
        callee = (name, False)
        before = self.only.get(callee)
        self.only[callee] = (call, scope)  # its parameters: this call's arguments
        self.making.add(name)
        try:
            values = [self.value(node, inner, depth + 1) for node, inner in returns]
        finally:
            self.making.discard(name)
            if before is None:
                del self.only[callee]
            else:
                self.only[callee] = before
        given = [v for v in values if v != ""] or values
        if any(v != given[0] for v in given[1:]):
            return None  # which return gives the address is the program's choice
        return given[0] if self.choosing else settled(given[0])

    def _other_env_helper(self, shape: _Called, name: str) -> tuple[str, str] | None:
        """(package, function) of a call that may be of an env helper another file
        declares: an exported function of another scanned package (`helpers.GetEnv`), or
        a function of the package that this file does not declare (`getEnv`); the
        package's own files say whether it is one (facts.PackageEnv)."""
        if shape.kind == "identifier":
            known = shape.name not in self.functions and shape.name not in _BUILTINS
            return ("", shape.name) if known and self.package.lookup(shape.name) is None else None
        package, _, member = name.rpartition(".")
        if package and not _standard(package) and member[:1].isupper():
            return package, member
        return None

    def _env_helper(self, name: str) -> bool:
        """Whether the file's function `name` reads an environment variable with a default:
        `getEnv(key, fallback)` whose every return is `fallback`, `os.Getenv(key)` or a name
        bound to that (`if v := os.Getenv(key); v != ""`, `v, ok := os.LookupEnv(key)`).
        Read once a function."""
        known = self.env_helpers.get(name)
        if known is not None:
            return known
        self.env_helpers[name] = False
        function = self.functions.get(name)
        parameters = function.child_by_field_name("parameters") if function else None
        body = function.child_by_field_name("body") if function else None
        if parameters is None or body is None:
            return False
        places = {at: p for p, at in _parameter_places(parameters).items()}
        key, fallback = places.get(0), places.get(1)
        if key is None or fallback is None or len(places) != 2:
            return False
        found = captured(parser(), body, "(call_expression) @c (return_statement) @r")
        reads: set[int] = set()  # the env reads of `key`, by node id
        read_into: set[str] = set()  # the names bound to one
        for call in found.get("c", []):
            shape = self._called(call)
            if self._qualified_call(shape) not in ("os.Getenv", "os.LookupEnv"):
                continue
            if [_text(a) for a in shape.arguments] != [key]:
                continue
            read = _space_trimmed(call)  # `strings.TrimSpace(os.Getenv(key))`: the same read
            reads.add(read.id)
            holder = read.parent.parent if read.parent is not None else None
            if holder is not None and holder.type in ("short_var_declaration", "var_spec"):
                left = holder.child_by_field_name("left") or holder.child_by_field_name("name")
                names = _items(left)
                if names:
                    read_into.add(_text(names[0]))
        given = {fallback: False, "read": False}
        for statement in found.get("r", []):
            returned = statement.named_children
            items = _items(returned[0]) if len(returned) == 1 else []
            if len(items) != 1:
                return False
            value = items[0]
            if value.type == "identifier" and _text(value) == fallback:
                given[fallback] = True
            elif value.id in reads or (value.type == "identifier" and _text(value) in read_into):
                given["read"] = True
            else:
                return False
        self.env_helpers[name] = all(given.values())
        return self.env_helpers[name]

    def _number_parser(self, name: str) -> bool:
        """Whether the file's function `name` of one parameter returns what
        `strconv.Atoi` makes of it (`func convertPort(s string) int { port, err :=
        strconv.Atoi(s); if err != nil { log.Fatal(err) }; return port }`, or `return
        strconv.Atoi(s)`): every return's first value is that number. A number read from the
        environment then prints as it was given, as through strconv.Atoi. Read once a
        function."""
        key = f"number {name}"  # a name's own key is _env_helper's
        known = self.env_helpers.get(key)
        if known is not None:
            return known
        self.env_helpers[key] = False
        function = self.functions.get(name)
        parameters = function.child_by_field_name("parameters") if function else None
        body = function.child_by_field_name("body") if function else None
        places = _parameter_places(parameters) if parameters is not None else {}
        if body is None or len(places) != 1 or set(places.values()) != {0}:
            return False
        (parameter,) = places
        found = captured(parser(), body, "(call_expression) @c (return_statement) @r")
        parsed: set[str] = set()  # the names bound to `strconv.Atoi(parameter)`'s number
        atoi: set[int] = set()  # the calls `strconv.Atoi(parameter)`, by node id
        for call in found.get("c", []):
            shape = self._called(call)
            if self._qualified_call(shape) != "strconv.Atoi":
                continue
            if [_text(a) for a in shape.arguments] != [parameter]:
                continue
            atoi.add(call.id)
            holder = call.parent.parent if call.parent is not None else None
            if holder is not None and holder.type in ("short_var_declaration", "var_spec"):
                left = holder.child_by_field_name("left") or holder.child_by_field_name("name")
                names = _items(left)
                if names and names[0].type == "identifier":
                    parsed.add(_text(names[0]))
        returns = found.get("r", [])
        for statement in returns:
            returned = statement.named_children
            items = _items(returned[0]) if len(returned) == 1 else []
            first = items[0] if items else None
            if first is None:
                return False
            if not (first.id in atoi or (first.type == "identifier" and _text(first) in parsed)):
                return False
        self.env_helpers[key] = bool(returns)
        return self.env_helpers[key]

    def _flag(self, call: Node) -> tuple[int, int] | None:
        """Where a string or integer flag's definition has the flag's name and its default:
        the flag package's (`flag.String`, `flag.IntVar`) or pflag's, as a package function or a
        method of a flag set (`cmd.Flags().StringVarP(&addr, "address", "a", ...)`)."""
        shape = self._called(call)  # the call's function, read once
        if shape.function is None or shape.kind != "selector_expression":
            return None
        places = _FLAG_CALLS.get(shape.member)
        if places is None:
            return None
        package = self.qualified(shape.function)
        if package is not None:
            return places if package.rpartition(".")[0] in _FLAG_PACKAGES else None
        return places if any(p in _FLAG_PACKAGES for p in self.import_paths) else None

    def export_field_sources(self) -> None:
        """Where the file's fields get their values (FIELD_SOURCES, for FieldNetwork): the
        writes `_field` reads (assignments, the package's own struct literals, flag
        bindings) and the keyed fields of other packages' struct literals
        (`proxyserver.Options{Network: cfg.Network}`); a field handed by address to a
        call is ("other",). At most MAX_SOURCE_FIELDS fields, MAX_CHOICES writes each."""
        writes: dict[str, list[tuple[Node, _Scope]]] = defaultdict(list)
        for name, found in self.field_writes.items():
            writes[name] += found
        for literal, scope in self.literals:
            kind = literal.child_by_field_name("type")
            if kind is None or kind.type != "qualified_type":
                continue  # the package's own are in field_writes; a map's keys are no fields
            for element in _keyed_elements(literal):
                key, value = _keyed(element)
                if key.type in ("field_identifier", "identifier"):
                    writes[_text(key)].append((value, scope))
        sources: dict[str, tuple[tuple[str, ...], ...]] = {}
        for name, found in writes.items():
            summary = [self._field_source(node, scope) for node, scope in found[:MAX_CHOICES]]
            passes = self.field_passes.get(name, ())
            # a flag binding hands the field's address too: its write is read above
            if len(found) > MAX_CHOICES or any(self._flag(c) is None for c, _, _ in passes):
                summary.append(("other",))
            if any(source[0] != "other" for source in summary):
                sources[name] = tuple(dict.fromkeys(summary))
        if len(sources) > MAX_SOURCE_FIELDS:
            self.facts.exports[FIELD_SOURCES_CUT] = True  # a field may be written unseen
            return
        if sources:
            self.facts.exports[FIELD_SOURCES] = sources

    def _field_source(self, node: Node, scope: _Scope, flagged: bool = False) -> tuple[str, ...]:
        """One write of a field, for FIELD_SOURCES: ("text", value) of a literal or a
        constant, ("field", name) of another field read (`cfg.Network`), ("flag", name,
        *default's source) of a flag binding (`fs.StringVar(&c.Network, "network", "unix",
        ...)`, its default itself a text or a field), ("other",) for anything else."""
        if node.type == "call_expression" and not flagged:
            flag = self._flag(node)
            args = self._called(node).arguments
            if flag is None or max(flag) >= len(args):
                return ("other",)
            name = self.value(args[flag[0]], scope)
            default = self._field_source(args[flag[1]], scope, True)
            return ("flag", name, *default) if isinstance(name, str) else ("other",)
        if node.type == "selector_expression" and self.qualified(node) is None:
            return ("field", _text(node.child_by_field_name("field")))
        if node.type in ("interpreted_string_literal", "raw_string_literal", "identifier"):
            value = self.value(node, scope)
            if isinstance(value, str):
                return ("text", value)
        return ("other",)

    def _note_holders(self, literal: Node) -> None:
        """The key each composite literal this one holds is the value of (`m` of `S{m:
        &M{...}}`, in a value whose type is elided too), kept by the held literal: read from
        the outer literal, met first (a literal's `parent` is found from the root: asked of
        each literal, literals nested in each other were quadratic)."""
        bodies = [literal.child_by_field_name("body")]
        while bodies:
            body = bodies.pop()
            for element in body.named_children if body is not None else ():
                values = element.named_children if element.type == "keyed_element" else [element]
                bodies += [v.named_children[0] for v in values if _elided(v)]
                if element.type != "keyed_element" or element.named_child_count != 2:
                    continue
                key, value = _keyed(element)
                inner = (
                    value.child_by_field_name("operand")
                    if value.type == "unary_expression"
                    else value
                )
                if (
                    inner is not None
                    and inner.type == "composite_literal"
                    and key.type
                    in (
                        "field_identifier",
                        "identifier",
                    )
                ):
                    self.holders[inner.id] = _text(key)

    def _literal_fields(self, literal: Node, scope: _Scope) -> None:
        """`&Finalizer{baseURL: os.Getenv("URL")}`: a literal of the package's own struct
        writes its fields, as `f.baseURL = ...` does (a constructor's)."""
        kind = literal.child_by_field_name("type")
        if kind is None or kind.type != "type_identifier":
            return
        holder = self.holders.get(literal.id, "")
        for element in _keyed_elements(literal):
            key, value = _keyed(element)
            if key.type in ("field_identifier", "identifier"):
                self.field_writes[_text(key)].append((value, scope))
                if holder:
                    self.held_writes[(_text(key), holder)].append((value, scope))

    def _bind_flags(self) -> None:
        """`flag.StringVar(&addr, "address", ...)` gives `addr` (or the field of
        `&cfg.Address`) the flag's value: the call stands for it."""
        if not any(path in _FLAG_PACKAGES for path in self.import_paths):
            return
        for call, scope in self.calls:
            flag = self._flag(call)
            args = self._called(call).arguments
            if flag is None or flag[0] == 0 or not args or args[0].type != "unary_expression":
                continue
            target = args[0].child_by_field_name("operand")
            if target is not None and target.type == "identifier":
                found = scope.lookup(_text(target))
                if found is not None and not found[1]:
                    found[0].opaque.discard(_text(target))  # `var addr string`
                    found[0].bindings[_text(target)].append(call)
            elif target is not None and target.type == "selector_expression":
                field = _text(target.child_by_field_name("field"))
                self.field_writes[field].append((call, scope))
                self.assigned.add(field)

    def _bind_env_tags(self, root: Node) -> None:
        """A struct field tagged with its environment variable (a field `Host` tagged
        `env:"AUTH_HOST"`) holds that variable's value once the library fills the struct
        (`env.Parse(&cfg)`), as `s.host = os.Getenv("AUTH_HOST")` would: `_field` reads it,
        with the default the library's own tag gives."""
        if not self.env_tags:
            return
        query = (
            "(field_declaration tag: (_)) @field (field_declaration type: (struct_type)) @holder"
        )
        found = captured(parser(), root, query)
        # each tagged field with the field whose struct holds it: the struct ranges open at
        # its start, innermost last (a sweep in source order, as _bind's)
        places = [(n.start_byte, -n.end_byte, 0, n) for n in found.get("field", [])]
        places += [(n.start_byte, -n.end_byte, 1, n) for n in found.get("holder", [])]
        places.sort(key=_place)
        holders: list[tuple[int, str]] = []
        for start, _, holds, declaration in places:
            while holders and holders[-1][0] <= start:
                holders.pop()
            if holds:
                holder = _text(declaration.child_by_field_name("name"))
                holders.append((declaration.end_byte, holder))
                continue
            within = holders[-1][1] if holders else ""
            values = _tag_values(self._string(declaration.child_by_field_name("tag")))
            for style in self.env_tags:
                for field_name in declaration.children_by_field_name("name"):
                    ref = style.variable(values, _text(field_name))
                    if ref is None:
                        continue
                    refs = self.tagged[_text(field_name)][within]
                    # each once, and no more than make it unknown (one_of): each read of
                    # the field joins them all
                    if ref not in refs and len(refs) <= MAX_CHOICES:
                        refs.append(ref)

    def _bind_settings_tags(self, root: Node) -> None:
        r"""A field of a struct viper fills (`viper.Unmarshal(&cfg)`) holds what its settings
        file sets at the field's key: the `mapstructure` tags (or the names, as viper
        matches them) of the fields that lead to it from a struct no other field holds
        (`ProjectService ProjectServiceConfig \`mapstructure:"project_service"\`` then
        `GrpcAddress string \`mapstructure:"grpc"\``: `project_service.grpc`). `_field`
        reads it as it reads an env library's tag."""
        if _VIPER not in self.import_paths:
            return
        folders: list[str] = []
        name: str | None = None
        named = 0  # the names the code sets: a built one (`"config." + env`) is not known
        for call, scope in self.calls:
            shape = self._called(call)
            if shape.member not in _VIPER_FILES or len(shape.arguments) != 1:
                continue
            value = self.value(shape.arguments[0], scope)
            text = value if isinstance(value, str) and not isinstance(value, Unknown) else None
            if shape.member == "AddConfigPath" and text is not None:
                folders.append(os.path.normpath(text))
            elif shape.member != "AddConfigPath":
                named += 1
                if shape.member == "SetConfigFile" and text is not None:
                    folders.append(os.path.dirname(os.path.normpath(text)))
                    text = os.path.splitext(os.path.basename(text))[0]
                name = text
        environment = self._viper_environment()
        if not folders and environment is None:
            return
        name = name if named == 1 else None
        # each struct type's fields: (name, its struct type's name, key)
        fields: dict[str, list[tuple[str, str, str]]] = {}
        for struct in captured(parser(), root, "(type_spec type: (struct_type) @s)").get("s", []):
            spec_name = struct.parent.child_by_field_name("name") if struct.parent else None
            fields[_text(spec_name)] = list(self._settings_fields(struct))
        # the keys that lead to each struct from one that no field holds
        held: dict[str, list[tuple[str, str]]] = defaultdict(list)  # type -> (holder, key)
        # the fields that hold each struct: `cfg.ProjectService.GrpcAddress` reads one
        holding: dict[str, list[str]] = defaultdict(list)
        for holder, members in fields.items():
            for field_name, kind, key in members:
                if kind in fields:
                    held[kind].append((holder, key))
                    holding[kind].append(field_name)
        for type_name, members in fields.items():
            prefix = _settings_prefix(type_name, held)
            within = holding.get(type_name, [])
            if prefix is None:
                continue
            for field_name, _, key in members:
                ref = SettingsKey(prefix + key, tuple(folders), name)
                if environment is not None:
                    ref = environment.key(ref)
                    if not folders and not environment.knows(ref.key):
                        continue  # no file, default or binding: viper knows no such key
                for place in [*within, ""] if len(within) == 1 else [""]:
                    # for the packages that read it from a struct this one returns
                    self.facts.exports[f"field {place}.{field_name}"] = ref
                    refs = self.tagged[field_name][place]
                    if ref not in refs and len(refs) <= MAX_CHOICES:
                        refs.append(ref)

    def _viper_environment(self) -> _ViperEnvironment | None:
        """What viper's calls say of the environment and defaults: `AutomaticEnv()`, its
        `SetEnvPrefix` and `SetEnvKeyReplacer(strings.NewReplacer(".", "_"))`, each
        `SetDefault(key, value)` of a literal key and each `BindEnv(key, names...)` (the
        key's own variable with no names); None when the code makes none of them.
        A replacer of other than literal pairs of one character each leaves the variables
        unknown."""
        found = _ViperEnvironment()
        said = False
        for call, scope in self.calls:
            shape = self._called(call)
            member, arguments = shape.member, shape.arguments
            if member not in _VIPER_ENVIRONMENT:
                continue
            said = True
            values = [self.value(a, scope) for a in arguments[:2]]
            if member == "AutomaticEnv" and not arguments:
                found.automatic = True
            elif member == "SetEnvPrefix" and len(values) == 1:
                found.prefix = values[0] if isinstance(values[0], str) else None
                found.given["prefix"] = found.prefix
            elif member == "SetEnvKeyReplacer" and len(arguments) == 1:
                found.replaced = self._replacer(arguments[0], scope)
                found.given["replaced"] = found.replaced
            elif member in ("BindEnv", "MustBindEnv") and values and isinstance(values[0], str):
                more = arguments[1 : MAX_CHOICES + 1]  # its variables, past the key
                found.bind(values[0], [self.value(a, scope) for a in more])
            elif member == "SetDefault" and len(values) == 2 and isinstance(values[0], str):
                given = values[1]
                if isinstance(given, int) and not isinstance(given, bool):
                    given = str(given)
                if isinstance(given, str) and len(found.defaults) < MAX_CHOICES * 64:
                    found.defaults[values[0].lower()] = given
        return found if said else None

    def export_viper_environment(self) -> None:
        """What the file's viper calls say of the environment, for the readers of viper's
        registry in the other packages of its programs (facts.ViperKey): whether it calls
        `AutomaticEnv`, the prefix and replacements it sets (None: not known), its
        defaults and bindings, whether it reads a settings file or reader (`read`), and the
        keys it `Set`s (None: one not a literal)."""
        if _VIPER not in self.import_paths:
            return
        environment = self._viper_environment()
        said: dict[str, Any] = {}
        written: list[str] | None = []
        named: list[tuple[str, str | None]] = []  # (call, its path or folder, None: unknown)
        for call, scope in self.calls:
            shape = self._called(call)
            if self._qualified_call(shape) != f"{_VIPER}.{shape.member}":
                continue
            if shape.member in _VIPER_READS or shape.member in _VIPER_FILES:
                said["read"] = True
            if shape.member in _VIPER_READS and shape.member not in _VIPER_FILE_READS:
                said["reader"] = True  # a reader's or a remote store's settings: not known
            if shape.member in _VIPER_FILES and len(named) <= MAX_CHOICES:
                named.append((shape.member, self._file_named(shape.arguments, scope)))
            elif shape.member == "Set" and shape.arguments and written is not None:
                key = self.value(shape.arguments[0], scope)
                known = isinstance(key, str) and len(written) < MAX_CHOICES
                written = [*written, key.lower()] if known else None
        if written != []:
            said["set"] = written
        if named:
            said["files"] = _settings_files(named)
        if environment is not None:
            said |= {"automatic": environment.automatic, "defaults": environment.defaults}
            said["bound"] = environment.bound
            # what `SetEnvPrefix` and `SetEnvKeyReplacer` set, where the file calls them
            said |= environment.given
        if said:
            self.facts.exports[VIPER_ENVIRONMENT] = said

    def _file_named(self, arguments: list[Node], scope: _Scope) -> str | None:
        """The path or name one of viper's file calls gives: a literal, or a flag's default
        (`--config`'s, as the image runs it with no such argument); None when not known."""
        value = self.value(arguments[0], scope) if len(arguments) == 1 else UNKNOWN
        if isinstance(value, FlagRef) and not value.prefix and not value.suffix:
            value = value.default
        if isinstance(value, str) and not isinstance(value, Unknown) and value:
            return value
        return None

    def _replacer(self, node: Node, scope: _Scope) -> dict[str, str] | None:
        """The replacements of `strings.NewReplacer(".", "_", ...)`, each one character."""
        if node.type != "call_expression":
            return None
        shape = self._called(node)
        if self._qualified_call(shape) != "strings.NewReplacer":
            return None
        if len(shape.arguments) > MAX_CHOICES * 2:
            return None
        texts = [self.value(a, scope) for a in shape.arguments]
        if len(texts) % 2 or not all(isinstance(t, str) and len(t) == 1 for t in texts):
            return None
        pairs: dict[str, str] = {}
        for old, new in zip(texts[::2], texts[1::2], strict=True):
            pairs.setdefault(old, new)  # the first pair of a character wins, as Go's
        return pairs

    def _settings_fields(self, struct: Node) -> Iterator[tuple[str, str, str]]:
        """(name, type name, key) of a struct's fields: the key its `mapstructure` tag
        gives (up to a comma's options), else its name as viper matches it (lower-cased)."""
        members = [c for c in struct.named_children if c.type == "field_declaration_list"]
        for declaration in members[0].named_children if members else ():
            if declaration.type != "field_declaration":
                continue
            tag = declaration.child_by_field_name("tag")
            values = _tag_values(self._string(tag)) if tag is not None else {}
            kind = declaration.child_by_field_name("type")
            while kind is not None and kind.type == "pointer_type":
                kind = kind.named_children[0] if kind.named_children else None
            kind_name = _text(kind) if kind is not None else ""
            for field_name in declaration.children_by_field_name("name"):
                key = values.get("mapstructure", "").split(",", 1)[0].strip()
                if key != "-":
                    yield _text(field_name), kind_name, key or _text(field_name).lower()

    def _composite(self, node: Node, scope: _Scope, depth: int) -> Any:
        body = node.child_by_field_name("body")
        if body is None:
            return UNKNOWN
        keyed = [c for c in body.named_children if c.type == "keyed_element"]
        if keyed:
            result: dict[str, Any] = {}
            for element in keyed:
                key, value = _keyed(element)
                result[_text(key)] = self.value(value, scope, depth + 1)
            return result
        return [
            self.value(_unwrap(c), scope, depth + 1)
            for c in body.named_children
            if c.type == "literal_element"
        ]

    def _string(self, node: Node | None) -> str:
        if node is None:
            return ""
        text = _text(node)
        if node.type == "raw_string_literal":
            return text[1:-1]
        try:
            return str(text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape"))
        except UnicodeDecodeError:
            return text[1:-1]

    # -- facts -------------------------------------------------------------------------------

    def _bound_to(self, call: Node) -> str | None:
        """`conn` in `conn, err := grpc.Dial(...)`, `s.conn` in `s.conn, err = ...`, `t` in
        `t := &http.Transport{...}`."""
        parent = call.parent
        while parent is not None and parent.type in ("expression_list", "unary_expression"):
            parent = parent.parent
        if parent is None or parent.type not in (
            "short_var_declaration",
            "assignment_statement",
            "var_spec",
        ):
            return None
        targets = (
            parent.children_by_field_name("name")
            if parent.type == "var_spec"
            else _items(parent.child_by_field_name("left"))
        )
        return _text(targets[0]) if targets else None

    def _long_lived(self, call: Node, scope: _Scope, name: str | None, depth: int = 0) -> bool:
        """Made once and kept: at package level, in a function that runs once (main, init,
        New...), stored in a struct field, or returned to a caller that keeps it (any, when
        no call of the file reaches the function: a factory's caller keeps what it
        returns); not when the same function closes it with `defer x.Close()` (a
        connection per call)."""
        here = self._kept_here(call, scope, name)
        if here is not None:
            return here
        known = self.kept.get((call.id, name))
        if known is not None:
            return known
        self.kept[(call.id, name)] = False  # a function that calls itself: not by that
        callers = self._callers(scope)
        found = not callers or any(
            depth < MAX_DEPTH and self._long_lived(c, s, self._handed_to(c, scope, name), depth + 1)
            for c, s in callers
        )
        self.kept[(call.id, name)] = found
        return found

    def _kept_here(self, call: Node, scope: _Scope, name: str | None) -> bool | None:
        """Whether what `call` makes is kept, as its own function tells; None when the
        function hands it to its callers."""
        if scope.parent is None:
            return True
        body = _enclosing_body(call)
        once = self._once(scope.name or "") or self._action_body(body)  # runs once a process
        if name and not once and body is not None and name in self._deferred_closes(body):
            return False
        if name and body is not None and self._closers().closed_per_call(body, name):
            return False  # a closer returned beside it, which each caller runs
        if once or (name and "." in name):
            return True
        if name and body is not None and self._kept_in_package(body, name, scope):
            return True
        if self._pointer_parameter(scope, name) is not None:
            return None  # `*conn = grpc.NewClient(...)`: the caller's variable holds it
        if body is None or not (
            self._returned(call, body, name)
            # `return &Client{conn: conn}`: the struct returned holds it, for the callers
            or (name is not None and self._returned_field(body, name) is not None)
        ):
            return False
        return None

    def _kept_in_package(self, body: Node, name: str, scope: _Scope) -> bool:
        return self._stored_place(body, name, scope) is not None

    def _stored_place(self, body: Node, name: str, scope: _Scope) -> str | None:
        """Where the function stores what `name` holds, when that is a package variable,
        a field of its method's receiver or an item of a map either holds, which outlive
        the call (as written, 80 characters at most; None when it stores it in none):
        `name` is one (`db, err = sql.Open(...)`), or the body assigns one `name`, a call
        given `name` (`cli = pb.NewDBClient(conn)`, `c.conns = append(c.conns, conn)`), a
        struct literal holding it (`c.conns[id] = &entry{conn: conn}`), or a function
        literal that closes it (`c.cleanups = append(c.cleanups, func() { conn.Close()
        })`: closed when the receiver's owner shuts down, not before the method returns)."""
        if self._package_variable(name, scope):
            return name
        stored = self.memo.stored.get(body.id)
        if stored is None:  # read once a body (not once a connection it makes)
            stored = {}
            home_scope = _function_scope(scope)
            receiver = home_scope.receiver[0] if home_scope and home_scope.receiver else None
            for node in walk(body):
                if node.type != "assignment_statement":
                    continue
                if _text(node.child_by_field_name("operator")) != "=":
                    continue
                left = _items(node.child_by_field_name("left"))
                right = _items(node.child_by_field_name("right"))
                if len(left) != len(right):
                    continue
                for target, value in zip(left, right, strict=True):
                    home = scope.lookup(_text(target))
                    if (
                        self._package_variable(_text(target), scope)
                        or (home is not None and (id(home[0]), _text(target)) in self.undeclared)
                        or self._receivers_field(target, receiver, scope)
                    ):
                        for held in _held(value):
                            stored.setdefault(held, _text(target)[:80])
            self.memo.stored[body.id] = stored
        return stored.get(name)

    def _receivers_field(self, target: Node, receiver: str | None, scope: _Scope) -> bool:
        """Whether an assignment's target is a field of the method's receiver (`c.conns`,
        `c.pools.orders`), or of a package variable (`registry.conns`)."""
        root = target
        # `c.conns[name]`, `registry[name]`: a map the receiver or the package holds
        while root.type in ("selector_expression", "index_expression"):
            root = root.child_by_field_name("operand") or root
            if root.type == "identifier":
                break
        if root is target or root.type != "identifier":
            return False
        text = _text(root)
        if receiver is not None and text == receiver:
            found = scope.lookup(text)
            return found is None or not found[1]  # the receiver, not a name shadowing it
        return self._package_variable(text, scope)

    def _package_variable(self, name: str, scope: _Scope) -> bool:
        home = scope.lookup(name)
        return home is not None and home[0] is self.package

    def _pointer_parameter(self, scope: _Scope, name: str | None) -> int | None:
        """The place of the pointer parameter `name` writes through (`*conn`), if any."""
        home = _function_scope(scope)
        if not name or not name.startswith("*") or home is None:
            return None
        return home.parameters.get(name[1:])

    def _handed_to(self, caller: Node, scope: _Scope, name: str | None) -> str | None:
        """What holds, in the caller, what the function `scope` is in gives it: the
        variable the call is bound to, or the one whose address it passes (`&svc.conn`)."""
        at = self._pointer_parameter(scope, name)
        if at is None:
            return self._bound_to(caller)
        args = self._called(caller).arguments
        given = args[at] if at < len(args) else None
        if given is None or given.type != "unary_expression":
            return None
        return _text(given.child_by_field_name("operand"))

    def _addresses(
        self, node: Node | None, call: Node, scope: _Scope, name: str | None
    ) -> list[tuple[Any, bool]]:
        """Each address a client's call may have, with whether what it makes is kept. A
        function that hands it to its callers is judged once a caller (a factory that
        `main` keeps and a handler calls once): each caller's values with its keeping."""
        home = _function_scope(scope)
        callers = self._callers(scope) if self._kept_here(call, scope, name) is None else []
        if len(callers) > MAX_CHOICES:
            callers = []  # judged as one: its values are past what a parameter is followed to
        if home is None or home.callee is None or not callers:
            kept = self._long_lived(call, scope, name)
            return [(value, kept) for value in self.choices(node, scope)]
        found: list[tuple[Any, bool]] = []
        for caller, caller_scope in callers:
            self.only[home.callee] = (caller, caller_scope)
            try:
                values = self.choices(node, scope)
            finally:
                del self.only[home.callee]
            kept = self._long_lived(caller, caller_scope, self._handed_to(caller, scope, name), 1)
            add_kept(found, values, kept)
        return found

    def _returned(self, node: Node, body: Node, name: str | None) -> bool:
        """Whether the function hands `node` (or the name it is bound to) to its caller."""
        parent = node.parent
        while parent is not None and parent.type in (
            "expression_list",
            "unary_expression",
            "parenthesized_expression",
        ):
            parent = parent.parent
        if parent is not None and parent.type == "return_statement":
            return True
        if not name:
            return False
        found = self.returns.get(body.id)
        if found is None:
            # `return conn` or `return pb.NewClient(conn)`: a client made on it
            items = [
                item
                for statement in walk(body)
                if statement.type == "return_statement"
                for list_ in statement.named_children
                for item in _items(list_)
            ]
            names = {_text(item) for item in items if item.type == "identifier"}
            # `c := pb.NewClient(conn)` then `return c`: the client returned is made on it
            made = [
                value
                for statement in walk(body)
                if statement.type == "short_var_declaration"
                for target, value in zip(
                    _items(statement.child_by_field_name("left")),
                    _items(statement.child_by_field_name("right")),
                    strict=False,
                )
                if _text(target) in names
            ]
            found = {_text(item) for item in items} | {
                _text(arg)
                for item in items + made
                if item.type == "call_expression"
                for arg in self._made_on(item)
            }
            self.returns[body.id] = found
        return name in found

    def _made_on(self, call: Node) -> list[Node]:
        """The names a call's arguments hand it, in calls it is given too (a client made on
        a stub made on the connection: `api.NewClient(ctx, pb.NewStoreClient(conn))`),
        _MADE_ON calls deep at most."""
        found: list[Node] = []
        calls = [call]
        for _ in range(_MADE_ON):
            if not calls:
                break
            arguments = [arg for c in calls for arg in self._called(c).arguments]
            found += [arg for arg in arguments if arg.type == "identifier"]
            calls = [arg for arg in arguments if arg.type == "call_expression"]
        return found

    def _callers(self, scope: _Scope) -> list[tuple[Node, _Scope]]:
        """The file's calls of the function `scope` is the body of (its own scope's: a
        function literal inside it is not called by its name)."""
        home = _function_scope(scope)
        if home is None or home.callee is None:
            return []
        found = self.callers.get(home.callee)
        if found is None:
            called, method = home.callee
            found = [  # `pkg.dial(x)` or `c.dial(x)` for a function `dial`: another's
                (call, caller)
                for call, caller, shape in self.calls_to.get(called, [])
                if shape.function is not None and (shape.kind == "selector_expression") == method
            ]
            self.callers[home.callee] = found
        return found

    def _deferred_closes(self, body: Node) -> set[str]:
        """What a function body closes with `defer x.Close()`, read once a body (not once
        a connection it makes: thousands in one function were quadratic)."""
        found = self.closes.get(body.id)
        if found is None:
            text = _text(body)
            pieces = text.split("defer ")[1:]
            found = {piece[: piece.find(".Close()")] for piece in pieces if ".Close()" in piece}
            if "defer func" in text:  # `defer func() { ...; x.Close() }()`
                found |= {
                    closed
                    for node in walk(body)
                    if node.type == "defer_statement"
                    for closed in _closed_always(node)
                }
            self.closes[body.id] = found
        return found

    def _channel(self, call: Node, name: str, scope: _Scope) -> None:
        target_at, scheme = CHANNEL_FACTORIES[name]
        args = self._called(call).arguments
        bound = self._bound_to(call)
        given = args[target_at] if len(args) > target_at else None
        options = self._dial_options(args[target_at + 1 :], scope)
        # a package the program links in may change what a bare target gets (imported.py)
        self.facts.deferred |= scheme == "passthrough"
        handed = self._handed_out(call, scope, bound)
        self.facts.deferred |= handed is not None  # its callers are read in imported.py
        kept = self._kept_where(call, scope, bound)
        for target, long_lived in self._addresses(given, call, scope, bound):
            self.facts.channels.append(
                Channel(
                    loc=self.loc(call),
                    factory=self._short(name),
                    target=target,
                    options=options,
                    long_lived=long_lived,
                    default_scheme=scheme,
                    kept_by=handed if long_lived else None,
                    kept=kept if long_lived else "",
                )
            )

    def _gateway_channel(self, call: Node, scope: _Scope, name: str) -> None:
        """The channel a grpc-gateway registration dials (GATEWAY_DIALS): its `endpoint`,
        with the dial options its `opts` slice holds, kept until its context is done: for
        the process, unless that context ends sooner (`_context_ends`). Its messages name
        the call as written (`orderspb.RegisterOrdersHandlerFromEndpoint`)."""
        args = self._called(call).arguments
        if len(args) != 4 or args[3].type == "variadic_argument":
            return  # not the generated signature
        found: list[tuple[Node, _Scope] | None] = []
        pending: list[Helper] = []
        self._slice_into(args[3], scope, found, pending, 0)
        self.facts.deferred |= bool(pending)
        options = replace(
            self._dial_entries(found), given=True, pending=tuple(dict.fromkeys(pending))
        )
        dial, scheme = GATEWAY_DIALS[self._gateway_version()]
        self.facts.deferred |= scheme == "passthrough"  # as for grpc.Dial (imported.py)
        # gateways are set up as the program starts: kept, unless its context ends
        long_lived = not self._context_ends(args[0], scope)
        member = name.rpartition(".")[2]
        made_in = (
            f"by grpc-gateway's {member}, which dials it with {dial} and closes it only "
            "when its context is done"
        )
        for target in self.choices(args[2], scope):
            self.facts.channels.append(
                Channel(
                    loc=self.loc(call),
                    factory=self._called(call).text,
                    target=target,
                    options=options,
                    long_lived=long_lived,
                    default_scheme=scheme,
                    made_in=made_in,
                )
            )

    def _gateway_version(self) -> str:
        """grpc-gateway's major version the file imports (its `runtime`, for the mux): v1
        where it imports the module's v1 paths only, else v2. Read once a file: it may
        make thousands of registrations and import thousands of packages."""
        if self.gateway_version is None:
            paths = [path for path in self.import_paths if path.startswith(GATEWAY + "/")]
            v1 = paths and not any(path.startswith(GATEWAY + "/v2/") for path in paths)
            self.gateway_version = "v1" if v1 else "v2"
        return self.gateway_version

    def _context_ends(self, node: Node, scope: _Scope) -> bool:
        """Whether a context ends before the process does, as far as its expression (or
        the one local it is bound to, `ctx, cancel := context.WithTimeout(...)`) shows: a
        request's (`r.Context()`, done when the request ends), or one with a deadline
        (`context.WithTimeout`, `WithDeadline`)."""
        if node.type == "identifier":
            looked = scope.lookup(_text(node))
            if looked is None or len(looked[1]) != 1 or _text(node) in looked[0].opaque:
                return False
            node = looked[1][0]
        if node.type != "call_expression":
            return False
        shape = self._called(node)
        if shape.member == "Context" and not shape.arguments:
            return True
        return self._qualified_call(shape) in _DEADLINES

    def _kept_where(self, call: Node, scope: _Scope, name: str | None) -> str:
        """Where the channel `name` holds is kept, when its own line does not show it: a
        map or field of the receiver or a package variable the function stores it in, or
        the first of the file's callers of a function that returns it that so stores what
        it gets; "" when neither is seen."""
        body = _enclosing_body(call)
        if not name or body is None or "." in name or scope.parent is None:
            return ""
        own = self._stored_place(body, name, scope)
        if own is not None:
            return f"in `{own}`"
        if self._kept_here(call, scope, name) is not None:
            return ""
        for caller, caller_scope in self._callers(scope)[:MAX_CHOICES]:
            held = self._handed_to(caller, scope, name)
            there = _enclosing_body(caller)
            if not held or there is None or "." in held:
                continue
            place = self._stored_place(there, held, caller_scope)
            if place is not None:
                return f"by the caller at line {caller.start_point[0] + 1}, in `{place}`"
        return ""

    def _handed_out(self, call: Node, scope: _Scope, name: str | None) -> Helper | None:
        """The function (no method) that makes the channel `name` and hands it to its
        callers, when those of its own file (if any) each close it before they return:
        returned, or in a field of the struct it returns that the file's Close method
        closes (`return &client{conn: conn}`, `c.conn.Close()`) or that is exported
        (`return &Client{Conn: conn}`: its callers reach it)."""
        home = _function_scope(scope)
        body = _enclosing_body(call)
        if home is None or home.callee is None or home.callee[1] or not name or body is None:
            return None
        function = home.callee[0]
        if function in ("main", "init"):
            return None
        if not all(self._closes_per_call(c, s) for c, s in self._callers(scope)):
            return None  # a caller of the file keeps it
        if self._returned(call, body, name):
            return Helper("", function)
        held = self._returned_field(body, name)
        if held is not None and (held in self._closed() or held[:1].isupper()):
            return Helper("", function)  # an exported field: its callers reach the channel
        return None

    def _returned_field(self, body: Node, name: str) -> str | None:
        """The field of a returned struct literal that holds `name` (`&client{conn: conn}`),
        the body's read once (not once a connection it makes)."""
        fields = self.returned_fields.get(body.id)
        if fields is None:
            fields = {}
            for node in walk(body):
                if node.type != "return_statement":
                    continue
                for item in (i for child in node.named_children for i in _items(child)):
                    literal = _unwrap_address(item)
                    if literal.type != "composite_literal":
                        continue
                    for element in _keyed_elements(literal):
                        key, value = _keyed(element)
                        fields.setdefault(_text(value), _text(key))
            self.returned_fields[body.id] = fields
        return fields.get(name)

    def _closed(self) -> set[str]:
        """The fields the file's Close methods close (`c.conn.Close()` in `func (c *client)
        Close()`), read once a file."""
        if self.closed_fields is None:
            self.closed_fields = {
                found
                for declaration in self.declared
                if declaration.type == "method_declaration"
                and _text(declaration.child_by_field_name("name")) == "Close"
                for found in _CLOSED_FIELD.findall(_text(declaration))
            }
        return self.closed_fields

    def _dial_options(self, args: list[Node], scope: _Scope) -> Options:
        found, pending = self._spread(args, scope)
        options = self._dial_entries(found)
        return replace(options, given=bool(args), pending=pending)

    def _dial_entries(self, found: list[tuple[Node, _Scope] | None]) -> Options:
        """The balancing options among dial option expressions (each in its scope)."""
        entries: list[Option] = []
        complete = True
        for item in found:
            if item is None:
                complete = False
                continue
            arg, scope = item
            name = (
                self._qualified_call(self._called(arg)) if arg.type == "call_expression" else None
            )
            inner = self._called(arg).arguments if name else []
            if name == f"{GRPC}.WithDefaultServiceConfig" and inner:
                entries.append(
                    Option("grpc.service_config", self.value(inner[0], scope), self.loc(arg))
                )
            elif name == f"{GRPC}.WithBalancerName" and inner:
                entries.append(
                    Option("grpc.lb_policy_name", self.value(inner[0], scope), self.loc(arg))
                )
            elif name is None or not name.startswith(GRPC):
                complete = False  # an option made elsewhere may set the policy
        return Options(complete, tuple(entries))

    def _spread(
        self, args: list[Node], scope: _Scope
    ) -> tuple[list[tuple[Node, _Scope] | None], tuple[Helper, ...]]:
        """The option expressions, each with the scope it is read in: `opts...` followed
        to the slices it is given (`_slice_into`); None for what cannot be followed; and
        the functions of other files whose options it spreads (facts.Helper)."""
        found: list[tuple[Node, _Scope] | None] = []
        pending: list[Helper] = []
        for arg in args:
            if arg.type != "variadic_argument":
                found.append((arg, scope))
                continue
            inner = arg.named_children[0] if arg.named_children else None
            self._slice_into(inner, scope, found, pending, 0)
        if pending:
            self.facts.deferred = True
        return found, tuple(dict.fromkeys(pending))

    def _slice_into(
        self,
        node: Node | None,
        scope: _Scope,
        found: list[tuple[Node, _Scope] | None],
        pending: list[Helper],
        depth: int,
    ) -> None:
        """Every element an option slice expression may hold, added to `found`: a
        literal's, a variable's (each value it is given, `x = append(x, ...)` included:
        an option set on some path counts), `append`'s, and what a function of the file
        returns (`newServerOptions(params)`); one of another file is `pending`. None for
        a part that cannot be followed."""
        if node is None or depth > MAX_DEPTH or not self.budget.step(depth):
            found.append(None)
            return
        kind = node.type
        if kind == "parenthesized_expression" and node.named_children:
            self._slice_into(node.named_children[0], scope, found, pending, depth + 1)
        elif kind == "composite_literal":
            body = node.child_by_field_name("body")
            elements = body.named_children if body else []
            found += [(_unwrap(e), scope) for e in elements if e.type != "comment"]
        elif kind == "nil":
            return
        elif kind == "identifier":
            name = _text(node)
            looked = scope.lookup(name)
            if (
                looked is None
                or not looked[1]
                or name in looked[0].opaque
                or self._changed_in_place(node, name)
            ):
                found.append(None)  # a parameter, or a name bound where k8slb cannot see
                return
            home, bound = looked
            # every value it is given, a branch's default (`if len(opts) == 0`) too
            for value in [*bound, *home.defaults.get(name, [])]:
                if value.type == "slice_type":
                    continue  # `var opts []grpc.ServerOption`
                if _appends_to(value, name):  # `opts = append(opts, ...)`
                    self._appended(value, home, found, pending, depth)
                else:
                    self._slice_into(value, home, found, pending, depth + 1)
        elif kind == "call_expression":
            function = node.child_by_field_name("function")
            if _text(function) == "append":
                args = self._called(node).arguments
                if args:
                    self._slice_into(args[0], scope, found, pending, depth + 1)
                self._appended(node, scope, found, pending, depth)
                return
            declared = self.functions.get(_text(function)) if function is not None else None
            if declared is not None:
                for returned, inner in self._returned_values(declared):
                    self._slice_into(returned, inner, found, pending, depth + 1)
                return
            local = function is not None and function.type == "identifier"
            helper = self._helper(function)
            if helper is None or (local and scope.lookup(_text(function)) is not None):
                found.append(None)  # (a function value: a parameter's, a variable's)
            else:
                pending.append(helper)
        else:
            found.append(None)

    def _appended(
        self,
        call: Node,
        scope: _Scope,
        found: list[tuple[Node, _Scope] | None],
        pending: list[Helper],
        depth: int,
    ) -> None:
        """The elements `append(x, a, b...)` adds to x."""
        for arg in self._called(call).arguments[1:]:
            if arg.type == "variadic_argument":
                inner = arg.named_children[0] if arg.named_children else None
                self._slice_into(inner, scope, found, pending, depth + 1)
            else:
                found.append((arg, scope))

    def _returned_values(self, declaration: Node) -> tuple[tuple[Node, _Scope], ...]:
        """What a function of the file returns (its first result), at each `return`
        of its own (not of a function literal inside it), with the scope it is read in;
        read once a function (_function_listener asks it again at each depth)."""
        known = self.memo.returned_values.get(declaration.id)
        if known is None:
            known = self.memo.returned_values[declaration.id] = tuple(self._returns_of(declaration))
        return known

    def _returns_of(self, declaration: Node) -> list[tuple[Node, _Scope]]:
        body = declaration.child_by_field_name("body")
        scope = self.scope_of.get(body.id) if body is not None else None
        if body is None or scope is None:
            return []
        found: list[tuple[Node, _Scope]] = []
        stack = list(body.named_children)
        while stack:
            node = stack.pop()
            if node.type == "func_literal":
                continue
            if node.type == "return_statement":
                values = [item for child in node.named_children for item in _items(child)]
                if values:
                    found.append((values[0], scope))
                continue
            stack.extend(node.named_children)
        return found

    def _helper(self, function: Node | None) -> Helper | None:
        """The function of another file a call names: `newOpts` (the package's own, in
        another file) or `util.NewOpts` (an imported package's)."""
        if function is None:
            return None
        if function.type == "identifier":
            return Helper("", _text(function))
        operand = function.child_by_field_name("operand")
        if function.type == "selector_expression" and operand is not None:
            package = self.imports.get(_text(operand)) if operand.type == "identifier" else None
            if package is not None and not _standard(package):
                return Helper(package, _text(function.child_by_field_name("field")))
        return None

    def _server_entries(self, found: list[tuple[Node, _Scope] | None]) -> tuple[Options, list[Loc]]:
        """The connection options among server option expressions (each in its scope),
        and the ServerParameters literals that hold them: where a fix adds fields."""
        entries: list[Option] = []
        complete = True
        literals: list[Loc] = []
        for item in found:
            arg, scope = item if item is not None else (None, None)
            name = (
                self._qualified_call(self._called(arg))
                if arg is not None and arg.type == "call_expression"
                else None
            )
            if arg is None or scope is None or name is None or not name.startswith(GRPC):
                complete = False
                continue
            if name != f"{GRPC}.KeepaliveParams":
                continue
            inner = self._called(arg).arguments
            held = self._literals_of(inner[0], scope) if inner else None
            if held is None:
                complete = False
                continue
            # a variable assigned several literals: each one's fields (a key none sets is
            # unset whichever is in effect; where only some set it, it counts as set)
            literals += [self.loc(literal) for literal in held]
            for literal in held:
                for element in _keyed_elements(literal):
                    key, value = _keyed(element)
                    option = SERVER_PARAMETERS.get(_text(key))
                    if option is not None:
                        entries.append(Option(option, self.value(value, scope), self.loc(element)))
        return Options(complete, tuple(entries)), literals

    def _literals_of(self, node: Node, scope: _Scope) -> list[Node] | None:
        """The composite literals an expression is or names: one, or each value a
        variable is given in its function, in any branch (`kasp = keepalive.
        ServerParameters{...}` in an `if`, a `case`, a loop, or as a default under `if
        !ok`), when every one of them is a literal, and no more than MAX_CHOICES. None
        otherwise, and where the function changes the variable in place (a field or an
        element set, its address handed on, a `range` rebinding it): no answer rests on
        a binding that a branch may replace."""
        if node.type == "unary_expression":  # `*p`, `&p`
            operand = node.child_by_field_name("operand")
            if operand is None:
                return None
            node = operand
        if node.type != "identifier":
            literal = _literal_of(node, scope)
            return [literal] if literal is not None else None
        name = _text(node)
        found = scope.lookup(name)
        if found is None or name in found[0].opaque or self._changed_in_place(node, name):
            return None
        home, bound = found
        values = [*bound, *home.defaults.get(name, [])]
        if not values or len(values) > MAX_CHOICES:
            return None  # (past the budget of a value's choices: unknown)
        held = [_literal_of(value, home) for value in values]
        return [literal for literal in held if literal is not None] if all(held) else None

    def _changed_in_place(self, node: Node, name: str) -> bool:
        """Whether the function declaration that uses `name` at `node` (its function
        literals included) changes that variable other than by assigning it: a field or
        an element set (`kasp.MaxConnectionAge = d`, `opts[0] = o`, `n++`), or its
        address taken (`tune(&kasp)`). Read from the body's identifiers, once a name."""
        body = self._top_level(node).child_by_field_name("body")
        if body is None:
            return False
        key = (body.id, name, "in place")
        if key not in self.dropped:
            uses = self.uses_of(body, name)
            self.dropped[key] = any(_in_place(use) for use in uses)
        return self.dropped[key]

    def _server(self, call: Node, scope: _Scope, factory: str) -> Server:
        args = self._called(call).arguments
        found, pending = self._spread(args, scope)
        listens: list[tuple[Node, Node, _Scope]] = []
        if factory in FRAMEWORK_SERVERS:  # its own options, the grpc-go ones inside
            found, listens = self._framework_options(found, pending)
            pending = ()
        options, literals = self._server_entries(found)
        server = Server(
            loc=self.loc(call),
            factory=FRAMEWORK_SERVERS.get(factory) or self._short(factory),
            balanced_by=SERVER_FACTORIES[factory],
            options=replace(
                options,
                literal=literals[0] if len(literals) == 1 else None,
                given=bool(args) or bool(literals),
                pending=pending,
            ),
            name=self._bound_to(call),
        )
        passed = None if server.name else self._passed_to_local(call)
        if passed is not None:  # `a.setServer(grpc.NewServer())`: its parameter's name
            handed = not self._only_registered(passed[0], passed[1])
            server = replace(server, name=passed[1], handed=handed)
        else:
            server = replace(server, handed=self._server_handed(call, scope, server.name))
        # held in a field (`&Server{rpc: grpc.NewServer()}`, `s.rpc = grpc.NewServer()`
        # with `s` a `*Server`): `Server.rpc`, called as a method serves it, if one does
        # (`srv.rpc.Serve(lis)`: what code put where it waits must call it)
        if server.name is None:
            typed = self._literal_holder(call)
        else:
            typed = self._typed_field(server.name, scope) if "." in server.name else None
        if typed is not None:
            server = replace(server, name=self._served_as().get(typed, server.name or typed))
            self.typed_servers.setdefault(typed, server.name or typed)
        self.facts.servers.append(server)
        for at, address, within in listens if server.name else []:
            value = self._listen_value(at, address, within)
            self.facts.listens.append(Listen(server.name or "", value, self.loc(at)))
        return server

    def _framework_options(
        self, found: list[tuple[Node, _Scope] | None], pending: tuple[Helper, ...]
    ) -> tuple[list[tuple[Node, _Scope] | None], list[tuple[Node, Node, _Scope]]]:
        """A framework server's options (go-kratos' `grpc.Options(...)`, `grpc.Address`...)
        -> the grpc-go options among them, for _server_entries (None for what cannot be
        followed: an option of another package, a helper of another file, whose options
        are not grpc-go's), and where it listens: each `Address(addr)` (the call, addr)
        and `Listener(lis)` of a `net.Listen` (that call, its address)."""
        inner: list[tuple[Node, _Scope] | None] = [None] if pending else []
        listens: list[tuple[Node, Node, _Scope]] = []
        for item in found:
            arg, scope = item if item is not None else (None, None)
            name = (
                self._qualified_call(self._called(arg))
                if arg is not None and arg.type == "call_expression"
                else None
            )
            package, _, member = (name or "").rpartition(".")
            if arg is None or scope is None or package not in KRATOS_GRPC:
                inner.append(None)
                continue
            given = self._called(arg).arguments
            if member == "Options":  # the grpc-go options the server is made with
                more, elsewhere = self._spread(given, scope)
                inner += more + ([None] if elsewhere else [])
            elif member == "Address" and given:
                listens.append((arg, given[0], scope))
            elif member == "Listener" and given:
                listener = self._listener(given[0], scope)
                if listener is not None:
                    listens.append(listener)
            elif member not in KRATOS_OPTIONS:
                inner.append(None)
        return inner, listens

    def _served_as(self) -> dict[str, str]:
        """How the file's first `Serve` call on a struct's field names it (`srv.rpc`), by
        the field named by its type (`Server.rpc`: _typed_field); read once a file."""
        if self.served is None:
            self.served = {}
            for _, scope, shape in self.shaped:
                if shape.member != "Serve" or "." not in shape.receiver or scope.in_test():
                    continue
                typed = self._typed_field(shape.receiver, scope)
                if typed is not None:
                    self.served.setdefault(typed, shape.receiver)
        return self.served

    def _literal_holder(self, call: Node) -> str | None:
        """`Server.rpc` for a server made as the value of a field in a literal of a named
        struct type (`&Server{rpc: grpc.NewServer()}`): the field, named by its type."""
        element = call.parent
        held = element is not None and element.type == "literal_element"
        keyed = element.parent if held and element is not None else None
        if keyed is None or keyed.type != "keyed_element" or keyed.named_children[-1] != element:
            return None
        body = keyed.parent
        literal = body.parent if body is not None else None
        kind = literal.child_by_field_name("type") if literal is not None else None
        if literal is None or literal.type != "composite_literal" or kind is None:
            return None
        key = _text(_unwrap(keyed.named_children[0]))
        return f"{_text(kind)}.{key}" if kind.type == "type_identifier" else None

    def _typed_field(self, held: str, scope: _Scope) -> str | None:
        """`Server.rpc` for `s.rpc` where `s` is a method's receiver of type `Server`, or a
        variable bound once to a literal of it (`s := &Server{}`): a struct's field named
        by its type, whatever the value is called where it is used."""
        operand, _, member = held.rpartition(".")
        if not operand.isidentifier():
            return None
        home: _Scope | None = scope
        for _ in range(_SCOPE_DEPTH):  # the scope that binds the name, or the method's
            if home is None or operand in home.bindings or operand in home.opaque:
                break
            if home.receiver is not None:
                break
            home = home.parent
        if home is None or operand in home.opaque:
            return None
        bound = home.bindings.get(operand, [])
        if not bound and home.receiver is not None and home.receiver[0] == operand:
            return f"{home.receiver[1]}.{member}"
        literal = _literal_of(bound[0], home) if len(bound) == 1 else None
        kind = literal.child_by_field_name("type") if literal is not None else None
        if kind is None or kind.type != "type_identifier":
            return None
        return f"{_text(kind)}.{member}"

    def _server_handed(self, call: Node, scope: _Scope, name: str | None) -> bool:
        """Whether code k8slb does not follow may stop the server `call` makes (Server's
        `handed`): every use of its name in the declaration that makes it must be its
        binding, a call of its methods (`s.Serve(lis)`: a method value, `s.GracefulStop`
        handed on, is no call) or the first argument of a registration
        (`pb.RegisterGreeterServer(s, ...)`, `reflection.Register(s)`). Read once for a
        name in a declaration (`dropped`), however many servers it binds there."""
        if not name or "." in name or self._package_variable(name, scope):
            return True
        body = self._top_level(call).child_by_field_name("body")
        if body is None:
            return True
        key = (body.id, name, "handed")
        if key not in self.dropped:
            self.dropped[key] = not all(
                _server_use(use) or self._registered_here(use) for use in self.uses_of(body, name)
            )
        return self.dropped[key]

    def _local_callee(self, call: Node | None) -> Node | None:
        """The declaration of this file a call calls: `register(s)` a function's, `x.m(s)`
        the one method of the file named m (none where two types declare one)."""
        if call is None or call.type != "call_expression":
            return None
        shape = self._called(call)
        if shape.kind == "identifier":
            return self.functions.get(shape.name)
        if shape.kind != "selector_expression":
            return None
        found = self._methods_named(shape.member)
        return found[0] if len(found) == 1 else None

    def _methods_named(self, method: str) -> list[Node]:
        """The file's method declarations named `method` (of any type)."""
        if self.methods is None:
            self.methods = defaultdict(list)
            for declaration in self.declared:
                if declaration.type == "method_declaration":
                    named = _text(declaration.child_by_field_name("name"))
                    self.methods[named].append(declaration)
        return self.methods.get(method, [])

    def _reads_only(self, method: str) -> bool:
        """Whether every method of the file named `method` (one at least) leaves its
        receiver as it is: its body writes none of the receiver's fields, takes no
        address of one, hands the receiver itself to nothing, and calls on it (or on its
        fields) only such methods (`func (c *Config) Validate() error`, which checks
        `c.Port` and calls `c.Limits.Validate()`). A method that leads back to itself is
        judged by its other statements. Read once a name."""
        known = self.read_only.get(method)
        if known is not None:
            return known
        self.read_only[method] = True  # within its own reading: its other statements say
        declarations = self._methods_named(method)
        found = bool(declarations) and len(declarations) <= MAX_CHOICES
        for declaration in declarations if found else ():
            receiver = _receiver(declaration)
            body = declaration.child_by_field_name("body")
            if receiver is None or body is None:
                found = False
                break
            if _struct_uses(body, receiver[0], self._reads_only) != set():
                found = False
                break
        self.read_only[method] = found
        return found

    def _server_visible(self, name: str, use: Node) -> bool:
        """Whether a server bound to the local `name` is the one a use of the name is in
        the scope of: a server declared (`:=`, `var`) in another block or function literal
        (`go func() { srv := grpc.NewServer(); ... }()`, then `srv := new(http.Server)` in
        another) is not."""
        spans = self.server_spans.get(name)
        return (
            spans is None
            or spans.cover(use.start_byte)
            or _a_parameter(name, use)  # `func halt(s *grpc.Server) { s.Stop() }`: as before
        )

    def _served_local(self, name: str, call: Node) -> Loc | None:
        """Where the server a `name.Serve(lis)` serves is made, where the file makes several
        under that name: the one whose local (`:=`, `var`) the call is in the scope of, the
        innermost; None when the file makes one, or none of the locals holds the call."""
        made = self.server_locals.get(name, [])
        if len(made) < 2:
            return None
        place = call.start_byte
        held = [(span, server) for span, server in made if span and span[0] <= place < span[1]]
        if not held:
            return None
        return max(held, key=lambda item: item[0][0] if item[0] else -1)[1].loc

    def _passed_to_local(self, node: Node) -> tuple[Node, str] | None:
        """The function of this file `node` is an argument of, and the name of the
        parameter it arrives as (none for a variadic one, or a call of another file's)."""
        arguments = node.parent
        call = arguments.parent if arguments is not None else None
        if arguments is None or arguments.type != "argument_list":
            return None
        callee = self._local_callee(call)
        parameters = callee.child_by_field_name("parameters") if callee is not None else None
        if callee is None or parameters is None or arguments.named_child_count > _MAX_ARGUMENTS:
            return None
        at = arguments.named_children.index(node)
        names = [n for n, place in _parameter_places(parameters).items() if place == at]
        return (callee, names[0]) if len(names) == 1 else None

    def _only_registered(self, function: Node, parameter: str) -> bool:
        """Whether a function of the file uses its server parameter only as `_server_use`
        does (registrations, its methods called): `registerServer(s, impl)`, which hands
        the server to no code k8slb does not follow."""
        body = function.child_by_field_name("body")
        key = (body.id if body is not None else 0, parameter, "registered")
        if body is None:
            return False
        if key not in self.dropped:
            uses = self.uses_of(body, parameter)
            self.dropped[key] = all(_server_use(use) for use in uses)
        return self.dropped[key]

    def _registered_here(self, use: Node) -> bool:
        """A server's name passed to a function of the file that only registers it."""
        passed = self._passed_to_local(use)
        return passed is not None and self._only_registered(*passed)

    def _method(
        self, call: Node, scope: _Scope, servers: dict[str, Server], shape: _Called
    ) -> None:
        if shape.function is None or shape.kind != "selector_expression" or scope.in_test():
            return
        receiver = shape.receiver
        method = shape.member
        if receiver not in servers and "." in receiver and method in _SERVER_METHODS:
            # `srv.rpc.Serve(lis)` in a method of `*Server`, whose constructor made the
            # server in `&Server{rpc: grpc.NewServer()}` (or set `s.rpc`): that server
            known = self.typed_servers.get(self._typed_field(receiver, scope) or "")
            receiver = known if known is not None and known in servers else receiver
        # whether the receiver is a server of the file, asked of the name alone: no copy
        # of `servers` a call (thousands of servers and of calls on them in a file)
        is_server = receiver in servers
        if not is_server and method in ("Stop", "GracefulStop"):
            held = self._held_servers(servers)
            is_server = receiver.rpartition(".")[2] in held and "." in receiver  # a field's
        elif not is_server and method == "Serve" and "." in receiver:
            # `a.grpcServer.Serve(lis)` of a field a method of the file set to a server
            # passed to it (`a.grpcServer = s`): that server starts
            keeper = self._held_servers(servers).get(receiver.rpartition(".")[2])
            receiver = keeper if keeper is not None and "." not in keeper else receiver
            is_server = receiver in servers
        if is_server and not self._server_visible(receiver, call):
            is_server = False  # another local
        if not is_server:
            if method == "SetConnMaxLifetime":
                # sqlx's `dbx.DB`; GORM v1's `db.DB()`, which gives the *sql.DB alone
                self._lifetime(receiver.removesuffix(".DB()").removesuffix(".DB"), call, scope)
            elif method == "DB" and receiver in self.pools and (bound := self._bound_to(call)):
                # `sqlDB, err := db.DB()`: the *sql.DB under a GORM handle, the same pool
                self.pools.setdefault(bound, []).extend(self.pools[receiver])
            elif method == "Shutdown" and self._holds_health(receiver):  # each NOT_SERVING
                self.facts.health_drains.append(self.loc(call))
            return
        if method == "Serve":
            self.facts.starts.add(receiver)
            late = self.late_handlers.get(call.start_byte)
            self.facts.waits.append(Wait(self.loc(call), receiver, "Serve()", late_handler=late))
            args = self._called(call).arguments
            listener = self._listener(args[0], scope) if args else None
            if listener is not None:
                address = self._listen_value(*listener)
                made = self._served_local(receiver, call)
                self.facts.listens.append(
                    Listen(receiver, address, self.loc(listener[0]), made=made)
                )
        elif method == "ServeHTTP":  # inside a handler of the process's own HTTP server
            self.facts.http_served.add(receiver)
        elif method == "GracefulStop":
            self.facts.stops.append(Stop(self.loc(call), receiver, math.inf, False))
        elif method == "Stop":
            # the bound of a GracefulStop in the same function (a timeout's) cuts only the
            # calls that outlive it: what the rules advise
            grace = math.inf if _bounds_graceful_stop(call, receiver, self.graceful) else 0
            ctrl_c = self._only_after_interrupt(call)
            self.facts.stops.append(Stop(self.loc(call), receiver, grace, ctrl_c))

    def _only_after_interrupt(self, call: Node) -> bool:
        """Whether the `Stop()` call comes after a receive, in its top-level function, from
        a channel only SIGINT is delivered to (`signal.Notify(ch, os.Interrupt)`: a
        developer's Ctrl-C, which Kubernetes never sends), and after no receive of SIGTERM:
        like Python's stop in `except KeyboardInterrupt`, it never runs on a rollout."""
        if not self.interrupt_channels:
            return False
        if self.first_receives is None:
            self.first_receives = self._first_receives()
        interrupt, sigterm = self.first_receives.get(self._top_level(call).id, (None, None))
        at = call.start_byte
        return interrupt is not None and interrupt <= at and (sigterm is None or sigterm > at)

    def _first_receives(self) -> dict[int, tuple[int | None, int | None]]:
        """By top-level declaration: where its first receive from a SIGINT-only channel of
        its own, and its first receive of SIGTERM, end (one pass over the receives)."""
        sigterm = {name for how, name in self.signal_sources if how == "channel"}
        interrupt = {
            (self._top_level(notify).id, name)
            for name, notify in self.interrupt_channels
            if name not in sigterm
        }
        found: dict[int, tuple[int | None, int | None]] = {}
        for node in self.unary:
            if _text(node.child_by_field_name("operator")) != "<-":
                continue
            operand = _text(node.child_by_field_name("operand"))
            top = self._top_level(node).id
            first_interrupt, first_sigterm = found.get(top, (None, None))
            end = node.end_byte
            if (top, operand) in interrupt:
                first_interrupt = min(end, first_interrupt or end)
            elif operand in sigterm or operand.endswith(".Done()"):
                first_sigterm = min(end, first_sigterm or end)
            found[top] = (first_interrupt, first_sigterm)
        return found

    def _waits(self, node: Node, waits: dict[int, tuple[_Scope, str]]) -> object | None:
        """The seconds `time.Sleep(d)` or `<-time.After(d)` waits (UNKNOWN when d cannot be
        read); None for any other node."""
        call = node
        if node.type == "unary_expression" and _text(node.child_by_field_name("operator")) == "<-":
            call = node.child_by_field_name("operand") or node
        if call.type != "call_expression" or call.id not in waits:
            return None
        scope, name = waits[call.id]
        if name == "time.After" and call is node:
            return None  # the channel is made; only receiving from it waits
        args = self._called(call).arguments
        millis = self.value(args[0], scope) if args else UNKNOWN
        return millis / 1000 if isinstance(millis, int | float) and _number(millis) else UNKNOWN

    def _http_listen(self, address: Node, at: Node, scope: _Scope) -> None:
        """Where a plain HTTP server listens (facts.http_listens)."""
        listen = Listen("http", self.value(address, scope), self.loc(at))
        self.facts.http_listens.append(listen)

    def _held_servers(self, servers: dict[str, Server]) -> dict[str, str]:
        """The struct fields that hold a server of the file, whatever the struct value is
        called where it is used (`in.server.Stop()` in a method, of the server a
        constructor stores as `&input{server: server}` or `s.server = server`): by field,
        the server's name."""
        if self.held is None:
            self.held = self._fields_holding(servers)
        return self.held

    def _fields_holding(self, names: Collection[str]) -> dict[str, str]:
        """The struct fields that hold what one of `names` holds, by field: one of them
        (`s.grpcServer = grpc.NewServer(...)`), or a field a literal or a write sets to one
        (`&input{server: server}`, `s.server = server`)."""
        held: dict[str, str] = {}
        for name in names:
            if "." in name:
                held.setdefault(name.rpartition(".")[2], name)
        for literal, _ in self.literals:
            for element in _keyed_elements(literal):
                key, value = _keyed(element)
                if _text(value) in names:
                    held.setdefault(_text(key), _text(value))
        for written, writes in self.field_writes.items():
            for value, _ in writes:
                if _text(value) in names:
                    held.setdefault(written, _text(value))
        return held

    def _holds_health(self, receiver: str) -> bool:
        """Whether `receiver` holds a health.NewServer(): a variable bound to one, or a
        field that holds one (`s.health.Shutdown()` in a method, of the server a constructor
        stores as `&Server{health: hs}`), read once a file."""
        if receiver in self.health:
            return True
        if "." not in receiver:
            return False
        if self.health_held is None:
            self.health_held = self._fields_holding(self.health)
        return receiver.rpartition(".")[2] in self.health_held

    def _listener(self, node: Node, scope: _Scope) -> tuple[Node, Node, _Scope] | None:
        """The `net.Listen("tcp", addr)` call a `Serve(lis)` argument comes from, addr, and
        the scope that reads them: through a field the file writes once (`s.listener = l`
        in the method that listens, `Serve(s.listener)` in another), and through a
        connection multiplexer's listener (`m.Match(cmux.HTTP2())`, or `MatchWithWriters`,
        of `m := cmux.New(lis)`), which listens where `lis` does whatever its matchers
        pick; followed no deeper than _MUX_DEPTH multiplexers."""
        for _ in range(_MUX_DEPTH):
            node, scope = self._written_once(node, scope)
            bound = self._bound_once(node, scope)
            if bound is None or bound.type != "call_expression":
                return None
            shape = self._called(bound)
            listening = self._net_listen(shape, scope)
            if listening is not None:
                args = listening[1]
                return (bound, args[1], scope) if len(args) == 2 else None
            if self._qualified_call(shape) == _BUFCONN:  # an in-memory listener
                return bound, bound, scope
            if self._listening_function(shape, scope):  # `util.ListenLocalSocket(path)`
                return bound, bound, scope
            if shape.member not in _MUX_MATCHES or shape.operand_kind != "identifier":
                return None
            made = self._bound_once(shape.operand, scope)
            if made is None or made.type != "call_expression":
                return None
            shape = self._called(made)
            package = (self._qualified_call(shape) or "").rpartition(".")[0]
            if shape.member != "New" or package not in _MUXES or len(shape.arguments) != 1:
                return None
            node = shape.arguments[0]
        return None

    def _net_listen(self, shape: _Called, scope: _Scope) -> tuple[str, list[Node]] | None:
        """The net package's listen a call is, with its network and address arguments:
        `net.Listen(network, address)`, `net.ListenUnix`, and a `net.ListenConfig`'s
        `Listen(ctx, network, address)` (read as `net.Listen`, its context left off: Go
        documents that `net.Listen` uses a zero ListenConfig), its config a literal
        (`net.ListenConfig{...}.Listen`, `(&net.ListenConfig{}).Listen`) or a name bound
        once to one, or declared `var lc net.ListenConfig` (the zero config)."""
        name = self._qualified_call(shape)
        if name in _NET_LISTENS:
            return name, shape.arguments
        if shape.member != "Listen" or shape.operand is None or name is not None:
            return None
        if not self._listen_config(shape.operand, scope):
            return None
        return "net.Listen", shape.arguments[1:]

    def _listen_config(self, node: Node, scope: _Scope) -> bool:
        """Whether an expression is a net.ListenConfig (_net_listen)."""
        for _ in range(MAX_DEPTH):
            if node.type == "parenthesized_expression" and node.named_child_count == 1:
                node = node.named_children[0]
            elif node.type == "unary_expression":  # `&net.ListenConfig{}`
                operand = node.child_by_field_name("operand")
                if operand is None:
                    return False
                node = operand
            elif node.type == "identifier":
                bound = self._bound_once(node, scope)
                if bound is None:
                    return False
                node = bound
            elif node.type == "composite_literal":
                return self._type_name(node.child_by_field_name("type")) == _LISTEN_CONFIG
            else:  # `var lc net.ListenConfig`: its type (_declare)
                return node.type == "qualified_type" and self._type_name(node) == _LISTEN_CONFIG
        return False

    def _written_once(self, node: Node, scope: _Scope) -> tuple[Node, _Scope]:
        """A field's one write in the file (`s.listener = l`: `l`, in the scope that writes
        it), where no call is handed the field's address to fill; any other node as it is."""
        if node.type != "selector_expression":
            return node, scope
        member = _text(node.child_by_field_name("field"))
        writes = self.field_writes.get(member, [])
        if len(writes) != 1 or member in self.field_passes:
            return node, scope
        return writes[0]

    def _listening_function(self, shape: _Called, scope: _Scope) -> bool:
        """Whether a call names a function of the tree that returns a net.Listener: one the
        file declares so, or another file's (its `listener` export says, imported.py)."""
        if shape.kind == "identifier" and shape.text in self.functions:
            return _returns_listener(self.functions[shape.text])
        return self._call_key(shape, scope) is not None

    def _listen_value(self, at: Node, address: Node, scope: _Scope) -> Any:
        """Where a server listens: its address's value, or, for a Unix socket
        (`net.Listen("unix", path)`, `net.ListenUnix`), `unix:PATH` (`unix:` alone where
        the path is not read), an address of its own pod only as a gRPC target writes it;
        for the listener a function of the tree returns (`_listener`, `at` is `address`),
        `unix:` where each of its returns listens on a Unix socket (`_returned_listener`);
        IN_MEMORY for grpc-go's `bufconn.Listen(size)`."""
        if at is address:  # grpc-go's in-memory listener, or a function's
            returning = self._called(at)
            if self._qualified_call(returning) == _BUFCONN:
                return IN_MEMORY
            return self._returned_listener(returning, 0)
        value = self.value(address, scope)
        shape = self._called(at) if at.type == "call_expression" else None
        listening = self._net_listen(shape, scope) if shape is not None else None
        if listening is None:
            return value
        name, args = listening
        network = self.value(args[0], scope) if args else None
        if name == "net.Listen" and network not in _UNIX_NETWORKS:
            if isinstance(value, Unknown):  # `fmt.Sprintf("localhost:%v", port)`: its host
                value = listen_head(self._literal_head(address, scope)) or value
            first = args[0] if args else None
            if (
                first is not None
                and first.type == "selector_expression"
                and self.qualified(first) is None
            ):  # `s.options.Network`: a flag may bind the field (FieldNetwork)
                self.facts.deferred = True
                return FieldNetwork(_text(first.child_by_field_name("field")), value)
            return value
        return f"unix:{value}" if isinstance(value, str) else "unix:"

    def _returned_listener(self, shape: _Called, depth: int) -> Any:
        """What the function a call names returns as its listener: `unix:` where each
        return of it is a Unix socket's listener (`net.Listen("unix", path)`, a variable
        bound once to one, a call of a function that returns one) or a Windows named pipe's
        (go-winio's `ListenPipe`: a build of the function for Windows; no Service reaches
        one either) and one at least is a Unix socket's; a ListenerOf where another file
        declares the function (or one its returns call); UNKNOWN otherwise."""
        if shape.kind == "identifier" and shape.text in self.functions:
            return self._function_listener(self.functions[shape.text], depth)
        helper = self._helper(shape.function)
        if helper is None:
            return UNKNOWN
        self.facts.deferred = True
        return ListenerOf(helper.package, helper.function)

    def _function_listener(self, declaration: Node, depth: int) -> Any:
        """What a function of the file returns as its listener (_returned_listener): read
        once a depth (functions each returning the next's at many returns would be read
        once a path, the returns to the power of MAX_DEPTH)."""
        if depth >= MAX_DEPTH or not _returns_listener(declaration):
            return UNKNOWN
        key = (declaration.id, depth)
        if key not in self.memo.function_listeners:
            returned = self._returned_values(declaration)
            kinds = [self._listener_kind(n, scope, depth) for n, scope in returned]
            self.memo.function_listeners[key] = _joined_listeners(kinds)
        return self.memo.function_listeners[key]

    def _listener_kind(self, node: Node, scope: _Scope, depth: int) -> Any:
        """What one `return` of a function that returns a listener gives (_returned_listener):
        `unix:`, `pipe:`, a ListenerOf, None for `nil` (an error's return), else UNKNOWN."""
        if node.type == "nil":
            return None
        bound = self._bound_once(node, scope)
        if bound is None or bound.type != "call_expression":
            return UNKNOWN
        shape = self._called(bound)
        name = self._qualified_call(shape)
        if name == _NAMED_PIPE or (
            # the package is named `winio` (its path's last element is `go-winio`)
            shape.kind == "selector_expression"
            and f"{shape.receiver}.{shape.member}" == "winio.ListenPipe"
            and _NAMED_PIPE.rpartition(".")[0] in self.import_paths
            and not scope.lookup("winio")
        ):
            return "pipe:"
        listening = self._net_listen(shape, scope)
        if listening is not None:
            args = listening[1]
            value = self._listen_value(bound, args[1], scope) if len(args) == 2 else UNKNOWN
            return "unix:" if isinstance(value, str) and value.startswith("unix:") else UNKNOWN
        return self._returned_listener(shape, depth + 1)

    def _literal_head(self, node: Node | None, scope: _Scope, depth: int = 0) -> str:
        """The literal text an address begins with, up to its first part k8slb cannot read:
        through a name bound once, `+`, `fmt.Sprintf` and `net.JoinHostPort` (the host
        given, then its colon)."""
        node = self._bound_once(node, scope)
        if node is None or depth >= MAX_DEPTH:
            return ""
        value = self.value(node, scope)
        if isinstance(value, str):
            return value
        if node.type == "parenthesized_expression" and node.named_children:
            return self._literal_head(node.named_children[0], scope, depth + 1)
        if node.type == "binary_expression" and _text(node.child_by_field_name("operator")) == "+":
            left = node.child_by_field_name("left")
            head = self._literal_head(left, scope, depth + 1)
            if left is not None and isinstance(self.value(left, scope), str):
                head += self._literal_head(node.child_by_field_name("right"), scope, depth + 1)
            return head
        if node.type != "call_expression":
            return ""
        shape = self._called(node)
        name = self._qualified_call(shape)
        values = [self.value(a, scope) for a in shape.arguments]
        if name == "fmt.Sprintf" and values and isinstance(values[0], str):
            parts = _sprintf_parts(values[0], values[1:])
            return leading_text(parts) if parts is not None else ""
        if name == "net.JoinHostPort" and len(values) == 2 and isinstance(values[0], str):
            host = values[0]
            return (f"[{host}]" if ":" in host else host) + ":"
        return ""

    def _bound_once(self, node: Node | None, scope: _Scope) -> Node | None:
        """The value a name is bound to, where it is bound once; any other node itself."""
        if node is None or node.type != "identifier":
            return node
        found = scope.lookup(_text(node))
        return found[1][0] if found is not None and len(found[1]) == 1 else None

    def _signal(self, call: Node, name: str, servers: dict[str, Server], scope: _Scope) -> None:
        args_all = self._called(call).arguments
        args = args_all[1:]
        names = [self.qualified(s) or _text(s) for a in args for s in self._signals(a, scope)]
        if not args or any(n in SIGTERM or n.endswith("SIGTERM") for n in names):
            self.facts.sigterm_handlers.append(self.loc(call))  # no signals: every signal
            if name == "os/signal.Notify" and args_all and args_all[0].type == "identifier":
                self.signal_sources.append(("channel", _text(args_all[0])))
            elif name == "os/signal.NotifyContext" and (bound := self._bound_to(call)):
                self.signal_sources.append(("context", bound))
            self.serves_before.ask(call, len(servers))  # late after a Serve? (_late_handlers)
        elif (
            name == "os/signal.Notify"
            and args_all[0].type == "identifier"
            and all(n in _INTERRUPTS or n.endswith(".SIGINT") for n in names)
        ):
            self.interrupt_channels.append((_text(args_all[0]), call))
            if len(self.facts.sigint_handlers) < MAX_CHOICES:
                self.facts.sigint_handlers.append(self.loc(call))

    def _library_signal(self, call: Node, servers: dict[str, Server]) -> None:
        """`ctx := signals.SetupSignalHandler()`: a library's handler, which catches
        SIGTERM for the program and gives a context (or a channel) done when it comes:
        received from as NotifyContext's is (by the name it is bound to, else by the call
        itself, as in `context.WithCancel(signals.SetupSignalHandler())`)."""
        self.facts.sigterm_handlers.append(self.loc(call))
        given = self._bound_to(call) or _text(call)
        self.signal_sources += [("context", given), ("channel", given)]
        self.serves_before.ask(call, len(servers))  # late after a Serve? (_late_handlers)

    def _derived_contexts(self, named: list[_Named]) -> None:
        """The contexts made from a SIGTERM context that are done when it is (`g, gctx :=
        errgroup.WithContext(ctx)`, `c, cancel := context.WithCancel(ctx)`): receiving
        from theirs is receiving the signal too."""
        contexts = {name for how, name in self.signal_sources if how == "context"}
        for call, _, name, shape in named:  # in the order of the file: a chain is followed
            place = _DERIVING.get(name or "")
            args = shape.arguments
            if place is None or not args or _text(args[0]) not in contexts:
                continue
            parent = call.parent
            if parent is not None and parent.type == "expression_list":
                parent = parent.parent
            left = parent.child_by_field_name("left") if parent is not None else None
            targets = _items(left)
            if (
                parent is not None
                and parent.type
                in (
                    "short_var_declaration",
                    "assignment_statement",
                )
                and place < len(targets)
                and (derived := _text(targets[place])) not in contexts
            ):
                contexts.add(derived)
                self.signal_sources.append(("context", derived))

    def _signals(self, node: Node, scope: _Scope) -> list[Node]:
        """The signals an argument of `Notify` gives: itself, or, for a slice spread into
        the call (`stopSignals...`), the elements of the slice literals (and `append`s)
        the variable is bound to, in its function or the package; so for the value of a
        `range` over such a slice (`for _, s := range stopSignals { signal.Notify(c, s) }`),
        the loop's one, that the body does not change."""
        if node.type == "identifier":
            walked = self._ranged_slice(node, scope)
            if walked is None:
                return [node]
            pending = [walked]
        elif node.type != "variadic_argument":
            return [node]
        else:
            pending = list(node.named_children)
        found: list[Node] = []
        seen: set[int] = set()
        while pending and len(seen) < MAX_STEPS:
            value = pending.pop()
            if value.id in seen:
                continue
            seen.add(value.id)
            if value.type == "identifier" and (bound := scope.lookup(_text(value))) is not None:
                pending.extend(bound[1])
            elif value.type == "composite_literal":
                body = value.child_by_field_name("body")
                for element in body.named_children if body is not None else []:
                    inner = element.named_children if element.type == "literal_element" else []
                    found.extend(inner[:1] or [element])
            elif (
                value.type == "call_expression"
                and _text(value.child_by_field_name("function")) == "append"
            ):
                given = self._called(value).arguments
                pending.extend(given[:1])
                for item in given[1:]:  # `append(list, syscall.SIGTERM)`, `append(a, b...)`
                    if item.type == "variadic_argument":
                        pending.extend(item.named_children)
                    else:
                        found.append(item)
        return found

    def _ranged_slice(self, use: Node, scope: _Scope) -> Node | None:
        """What a `range` variable's one loop walks (its `right`), where the variable is
        the element (`s` of `for _, s := range list`) and the body does not change it;
        None otherwise."""
        name = _text(use)
        found = scope.lookup(name)
        if found is None or found[1] or name in found[0].parameters:
            return None
        clauses = found[0].ranged.get(name)
        if not clauses or len(clauses) != 1 or clauses[0][1] != 1 or self._rewritten(use, name):
            return None
        return clauses[0][0].child_by_field_name("right")

    def _gorm(self, call: Node, scope: _Scope) -> None:
        """`db, err := gorm.Open(postgres.Open(dsn), ...)`: a database/sql pool, its address
        the DSN the driver's dialector is given. A dialector made otherwise (over a pool
        opened before, `postgres.New(postgres.Config{Conn: sqlDB})`) is not read."""
        args = self._called(call).arguments
        inner = args[0] if args and args[0].type == "call_expression" else None
        driver = (
            GORM_DIALECTORS.get(self._qualified_call(self._called(inner)) or "") if inner else None
        )
        if inner is None or driver is None:
            return
        dsn = self._called(inner).arguments
        self._db(call, scope, f"{GORM}.Open", dsn[0] if dsn else None, driver)

    def _gorm_v1(self, call: Node, scope: _Scope) -> None:
        """`db, err := gorm.Open("mysql", dsn)` (GORM v1): a database/sql pool of the
        dialect named first, its address the DSN; over a pool the file opened before
        (`gorm.Open("postgres", sqlDB)`), that pool under another name."""
        args = self._called(call).arguments
        if len(args) < 2:
            return
        if args[1].type == "identifier" and _text(args[1]) in self.pools:
            self._wrapped_pool(call, args[1])
            return
        driver = self.value(args[0], scope)
        self._db(call, scope, _GORM_V1_OPEN, args[1], driver if isinstance(driver, str) else "")

    def _db(
        self,
        call: Node,
        scope: _Scope,
        opener: str,
        given: Node | None = None,
        given_driver: str | None = None,
    ) -> None:
        """A database/sql pool `call` opens (POOL_OPENERS, or gorm.Open with the DSN and the
        driver its dialector was `given`)."""
        args = self._called(call).arguments
        name = self._bound_to(call)
        body = _enclosing_body(call)
        returned = (
            body is not None and scope.parent is not None and self._returned(call, body, name)
        )
        # a pool handed to its callers gets its lifetime there: the names they bind it to
        # are the pool's too (`db, err := openDB(dsn)` then `db.SetConnMaxLifetime(...)`)
        names = [name] if name else []
        names += (
            [n for c, _ in self._callers(scope) if (n := self._bound_to(c))] if returned else []
        )
        at = POOL_OPENERS.get(opener, 0)
        driver: Any
        if given_driver is not None:  # GORM's: the DSN and driver its call was given
            dsn, driver = given, given_driver
        else:
            dsn = args[at] if len(args) > at else None
            driver = self.value(args[at - 1], scope) if len(args) >= at else None
        factory = self._short(opener)  # `sql.Open`, `sqlx.Connect`
        for url, long_lived in self._addresses(dsn, call, scope, name):
            self.facts.db_pools.append(
                DbPool(
                    loc=self.loc(call),
                    factory=factory,
                    long_lived=long_lived,
                    url=url,
                    lifetime=None,
                    lifetime_arg="MaxConnLifetime" if opener in PGX_POOLS else "SetConnMaxLifetime",
                    returned=returned,
                    # mattn's `sqlite3`, modernc's `sqlite`: a file, not a server
                    in_process=isinstance(driver, str) and "sqlite" in driver.lower(),
                )
            )
            for bound in names:
                self.pools.setdefault(bound, []).append(len(self.facts.db_pools) - 1)

    def _wrapped_pool(self, call: Node, pool: Node | None = None) -> None:
        """`dbx := sqlx.NewDb(db, "postgres")`: `dbx` holds `db`'s pool (or the one `pool`
        names), so a lifetime set through it is that pool's."""
        args = self._called(call).arguments
        held = pool if pool is not None else args[0] if args else None
        bound = self._bound_to(call)
        if held is not None and bound and held.type == "identifier":
            self.pools.setdefault(bound, []).extend(self.pools.get(_text(held), []))

    def _lifetime(self, receiver: str, call: Node, scope: _Scope) -> None:
        args = self._called(call).arguments
        for index in self.pools.get(receiver, []) if args else []:
            pool = self.facts.db_pools[index]
            value = self.value(args[0], scope)
            self.facts.db_pools[index] = replace(pool, lifetime=value, returned=False)

    def _http(self, literal: Node, scope: _Scope) -> None:
        kind = literal.child_by_field_name("type")
        name = self._type_name(kind)
        if name not in ("net/http.Transport", "net/http.Client"):
            return
        fields = self._composite(literal, scope, 0)
        fields = fields if isinstance(fields, dict) else {}
        given = {_text(_keyed(element)[0]) for element in _keyed_elements(literal)}
        client = name == "net/http.Client"
        if client and "Transport" in given and not self._default_base(literal):
            return  # the Transport literal it holds is the pool, reported once
        bound = self._bound_to(literal)
        kept = self._long_lived(literal, scope, bound)
        factory = "http.Transport" if not client else "http.Client" if kept else None
        # a Client's requests name where it sends; else the module's URLs are its
        sent = self._sent_to(literal) if client and bound else []
        for url in sent or [None]:
            self.facts.http_clients.append(
                HttpClient(
                    loc=self.loc(literal),
                    # a Client made per call pools in http.DefaultTransport, the process's,
                    # as `http.Post` does: that pool is the long-lived one
                    factory=factory or "http.DefaultTransport",
                    long_lived=client or kept,
                    http2=fields.get("ForceAttemptHTTP2") is True,
                    base_url=url,
                    reuse_disabled=fields.get("DisableKeepAlives") is True,
                )
            )

    def _clones_default_transport(self, call: Node) -> bool:
        """`http.DefaultTransport.(*http.Transport).Clone()`: a Transport of its own, with
        the default's settings (90 s idle timeout, no lifetime) and a pool of its own."""
        operand = self._called(call).operand
        if operand is None or operand.type != "type_assertion_expression":
            return False
        asserted = operand.child_by_field_name("operand")
        kind = operand.child_by_field_name("type")
        inner = kind.named_children[0] if kind is not None and kind.named_children else None
        return (
            asserted is not None
            and self.qualified(asserted) == "net/http.DefaultTransport"
            and self._type_name(inner) == "net/http.Transport"
        )

    def _cloned_transport(self, call: Node, scope: _Scope) -> None:
        """A clone of http.DefaultTransport kept for the process (a package variable, a
        field, made once: `_long_lived`) pools like a Transport literal: the module's URLs
        are its; one its function sets `DisableKeepAlives = true` on reuses nothing. A
        clone made per call and dropped keeps no pool past the call: not one."""
        bound = self._bound_to(call)
        if not self._long_lived(call, scope, bound):
            return
        body = _enclosing_body(call)
        set_fields = self._fields_set(body, bound) if body is not None and bound else {}
        self.facts.http_clients.append(
            HttpClient(
                loc=self.loc(call),
                factory="http.Transport",
                long_lived=True,
                http2=False,  # as http.DefaultClient: h2 only over TLS, by ALPN
                base_url=None,
                reuse_disabled=_text(set_fields.get("DisableKeepAlives")) == "true",
            )
        )

    def _fields_set(self, body: Node, name: str) -> dict[str, Node]:
        """The fields a function body assigns on `name` (`t.DisableKeepAlives = true`),
        each with the last value it is given: the body read once for every name (a
        method making thousands of clones would otherwise walk it once for each)."""
        by_name = self.memo.fields_set.get(body.id)
        if by_name is None:
            by_name = defaultdict(dict)
            for node in walk(body):
                if node.type != "assignment_statement":
                    continue
                left = _items(node.child_by_field_name("left"))
                right = _items(node.child_by_field_name("right"))
                for target, value in zip(left, right, strict=False):
                    if target.type == "selector_expression":
                        operand = _text(target.child_by_field_name("operand"))
                        by_name[operand][_text(target.child_by_field_name("field"))] = value
            self.memo.fields_set[body.id] = by_name
        return by_name.get(name, {})

    def _sent_to(self, literal: Node) -> list[Any]:
        """The URLs the requests of the Client literal a name holds are made for:
        `client.Post(url, ...)` (Get, Head, PostForm), and `client.Do(req)` of a `req` made
        by `http.NewRequest` in the same function; the ones k8slb can read."""
        if self.sends is None:  # each sending call under the literals its receiver holds
            self.sends = defaultdict(list)
            for member in (*_CLIENT_REQUESTS, "Do"):
                for call, scope, shape in self.calls_to.get(member, []):
                    held = (
                        scope.lookup(shape.receiver) if shape.operand_kind == "identifier" else None
                    )
                    for node in held[1] if held is not None and len(held[1]) <= MAX_CHOICES else ():
                        self.sends[_unwrap_address(node).id].append((call, scope, shape))
        found: list[Any] = []
        for call, scope, shape in self.sends.get(literal.id, []):
            first = shape.arguments[0] if shape.arguments else None
            url = self._request_url_of(first, call, scope) if shape.member == "Do" else first
            values = self.choices(url, scope) if url is not None else []
            found += [value for value in values if not isinstance(value, Unknown)]
        return found

    def _request_url_of(self, request: Node | None, call: Node, scope: _Scope) -> Node | None:
        """The URL argument of the `http.NewRequest` a `Do(req)` sends: the last one `req`
        is bound to before the call (`req, err = http.NewRequest(...)` again for the next
        request), in its function."""
        held = scope.lookup(_text(request)) if request is not None else None
        if request is None or request.type != "identifier" or held is None:
            return None
        if len(held[1]) > MAX_CHOICES:
            return None  # a name bound past what is followed
        before = [n for n in held[1] if n.end_byte <= call.start_byte]
        made = max(before, key=lambda n: n.start_byte) if before else None
        if made is None or made.type != "call_expression":
            return None
        name = self._callee_of(self._called(made), scope)
        arguments = self._called(made).arguments
        at = REQUEST_URLS.get(name or "")
        return arguments[at] if at is not None and at < len(arguments) else None

    def _default_base(self, client: Node) -> bool:
        """Whether an http.Client's Transport pools its connections in http.DefaultTransport:
        it is that, or a wrapper (ochttp's, oauth2's) given no `Base`."""
        for element in _keyed_elements(client):
            key, value = _keyed(element)
            if _text(key) != "Transport":
                continue
            if self.qualified(value) == "net/http.DefaultTransport":
                return True
            if value.type == "call_expression":  # otelhttp.NewTransport(http.DefaultTransport)
                wrapped = self._called(value).arguments
                return any(self.qualified(a) == "net/http.DefaultTransport" for a in wrapped)
            inner = (
                value.child_by_field_name("operand") if value.type == "unary_expression" else value
            )
            if inner is None or inner.type != "composite_literal":
                return False
            kind = self._type_name(inner.child_by_field_name("type"))
            given = {_text(_keyed(e)[0]) for e in _keyed_elements(inner)}
            return kind in DEFAULT_BASE_WRAPPERS and "Base" not in given
        return False

    def _request_url(self, call: Node, at: int, scope: _Scope) -> None:
        """The URL a request is made for (`http.NewRequest("POST", cs.shippingAddr+"/ship",
        ...)`), when it is more than a literal (read where it is): an address the module's
        HTTP clients send to."""
        args = self._called(call).arguments
        if len(args) <= at or args[at].type in _STRINGS:
            return
        urls = [url for url in self.choices(args[at], scope) if not isinstance(url, Unknown)]
        if self.written is None:  # the literals are all read before the calls
            self.written = {url for url, _ in self.facts.urls if isinstance(url, str)}
        if self.written and any(isinstance(url, str) for url in urls):
            begun = self._begun(args[at], urls, scope)
            urls = [url for url in urls if not carried_url(begun, url, self.written)]
        self.facts.urls += [(url, self.loc(args[at])) for url in urls]

    def _begun(self, argument: Node, urls: list[Any], scope: _Scope) -> Any:
        """The one value a request's URL begins with (`base` of `base + "/ship"`, a name
        alone), to tell a URL written elsewhere and carried in (facts.carried_url); None
        where it begins with a literal, or may hold several."""
        first: Node | None = argument
        while first is not None and first.type == "binary_expression":
            if _text(first.child_by_field_name("operator")) != "+":
                break
            first = first.child_by_field_name("left")
        if first is None or first.type in _STRINGS:
            return None
        begun = urls if first is argument else self.choices(first, scope)
        return begun[0] if len(begun) == 1 else None

    def _on_default_client(self, call: Node) -> bool:
        """`http.DefaultClient.Get(...)` and the like."""
        shape = self._called(call)
        if shape.kind == "selector_expression":
            operand = shape.operand
            if shape.operand_kind != "selector_expression" and not self.dot_imports:
                return False  # nothing `qualified` can name
        elif shape.kind == "identifier" or shape.function is None:
            return False  # no operand
        else:  # `f[0](...)`, `f.(T)(...)`: the operand of an index, an assertion...
            operand = shape.function.child_by_field_name("operand")
        return operand is not None and self.qualified(operand) == "net/http.DefaultClient"

    def _held_default_client(self, call: Node, scope: _Scope) -> Node | None:
        """The `http.DefaultClient` that `client.Do(req)` (Get, Head, Post, PostForm) sends
        through, a variable bound once to it (`client := http.DefaultClient`); None for
        any other call."""
        shape = self._called(call)
        if shape.operand_kind != "identifier" or shape.member not in (*_CLIENT_REQUESTS, "Do"):
            return None
        found = scope.lookup(shape.receiver)
        if found is None or len(found[1]) != 1 or shape.receiver in found[0].opaque:
            return None
        bound = _unwrap_address(found[1][0])
        return bound if self.qualified(bound) == "net/http.DefaultClient" else None

    def _default_client(self, call: Node, scope: _Scope, held: Node | None = None) -> None:
        """`http.Get(url)`: the process-wide default transport, which keeps connections
        (90 s idle timeout, no lifetime) for as long as the program runs. `Do(request)`
        is given a request, not a URL: its URLs are the module's (the requests' own among
        them). One a variable holds (`client := http.DefaultClient`) is where it is
        bound, once for all its requests (`held`)."""
        args = self._called(call).arguments
        function = call.child_by_field_name("function")
        sent = function is not None and _called_name(function) == "Do"
        at = self.loc(held if held is not None else call)
        for url in self.choices(args[0], scope) if args and not sent else [None]:
            if held is not None and any(
                c.loc == at and c.base_url == url for c in self.facts.http_clients
            ):
                continue  # its other requests: the same client, reported once
            self.facts.http_clients.append(
                HttpClient(
                    loc=at,
                    factory="http.DefaultClient",
                    long_lived=True,
                    http2=False,
                    base_url=url,
                    reuse_disabled=False,
                )
            )

    def _type_name(self, node: Node | None) -> str | None:
        if node is None or node.type != "qualified_type":
            return None
        package = self.imports.get(_text(node.child_by_field_name("package")))
        return f"{package}.{_text(node.child_by_field_name('name'))}" if package else None


# RoundTrippers that wrap another and send through http.DefaultTransport when their `Base`
# is nil (the packages' documentation of `Base`).
DEFAULT_BASE_WRAPPERS = frozenset(
    {"go.opencensus.io/plugin/ochttp.Transport", "golang.org/x/oauth2.Transport"}
)
# An http.Client's methods that send to the URL they are given first.
_CLIENT_REQUESTS = ("Get", "Head", "Post", "PostForm")
# net/http's servers: the functions that listen on their first argument's address, and
# the struct whose `Addr` is where it listens; the packages of HTTP/2 in the clear (h2c),
# which gRPC may ride on the same port.
HTTP_LISTENERS = frozenset({"net/http.ListenAndServe", "net/http.ListenAndServeTLS"})
# net/http's functions that serve on a listener they are given (`http.Serve(lis, mux)`)
HTTP_LISTENER_SERVERS = frozenset({"net/http.Serve", "net/http.ServeTLS"})
HTTP_SERVER = "net/http.Server"
HTTP_HANDLER = "net/http.Handler"
H2C_PACKAGES = ("golang.org/x/net/http2",)
# The functions that make an http.Handler of a gRPC server they are given: grpc-web's
# wrapper serves the server's calls inside the HTTP server's connections.
HTTP_HANDLER_WRAPPERS = frozenset(
    {
        "github.com/improbable-eng/grpc-web/go/grpcweb.WrapServer",
        "github.com/improbable-eng/grpc-web/go/grpcweb.WrapHandler",
    }
)
# net/http's request constructors, with the place of their URL argument.
REQUEST_URLS = {"net/http.NewRequest": 1, "net/http.NewRequestWithContext": 2}
# strings' functions that cut a URL's trailing slash (`TrimRight(u, "/")`)
_SLASH_TRIMS = frozenset({"strings.TrimRight", "strings.TrimSuffix"})
# The package functions that use http.DefaultClient.
# what _facts_of_call compares each call's name with (made once, not at each call)
_GORM_OPEN = f"{GORM}.Open"
_GORM_V1_OPEN = f"{GORM_V1}.Open"
_SQLX_WRAP = f"{SQLX}.NewDb"
_SET_DEFAULT_SCHEME = f"{GRPC}/resolver.SetDefaultScheme"
_DEADLINES = frozenset({"context.WithTimeout", "context.WithDeadline"})
_HEALTH_SERVER = f"{HEALTH}.NewServer"
_DEFAULT_CLIENT_CALLS = frozenset(
    {"net/http.Get", "net/http.Head", "net/http.Post", "net/http.PostForm"}
)
_KNOWN = frozenset(
    {
        *CHANNEL_FACTORIES,
        *SERVER_FACTORIES,
        f"{GRPC}.KeepaliveParams",
        f"{GRPC}.WithDefaultServiceConfig",
        f"{GRPC}.WithBalancerName",
    }
)


def _gateway_registration(name: str | None) -> bool:
    """A package's `Register<Service>HandlerFromEndpoint`, as grpc-gateway generates it
    (GATEWAY_PARTS): a function of an imported package (one of the file's own package is
    left alone: where it is not generated, its own dial is read where it is written)."""
    head, tail = GATEWAY_PARTS
    if name is None or not name.endswith(tail):  # asked of every call: the rare end first
        return False
    member = name.rpartition(".")[2]
    return len(member) > len(head) + len(tail) and member.startswith(head)


def _registry_of(path: str, table: dict[str, str]) -> str | None:
    """The registry an import path is a client (or resolver) of, by the table's paths
    (a path below one counts: `.../nacos-sdk-go/v2/clients`)."""
    for prefix, registry in table.items():
        if path == prefix or path.startswith(prefix + "/"):
            return registry
    return None


@cache  # asked for every import of every file
def _registry_client(path: str) -> str | None:
    return _registry_of(path, REGISTRY_CLIENTS)


@cache
def _registry_resolver(path: str) -> str | None:
    return _registry_of(path, REGISTRY_RESOLVERS)


def _called_name(function: Node | None) -> str:
    """`Register` for `s.registry.Register(...)` and `Register(...)`; "" for a call of
    anything else (a function literal, an index)."""
    if function is None:
        return ""
    if function.type == "selector_expression":
        return _text(function.child_by_field_name("field"))
    return _text(function) if function.type == "identifier" else ""


def _registers(call: Node, called: str) -> bool:
    """A registry client's register call, in a file that imports a registry's client."""
    if called in REGISTER_CALLS:
        return True
    # ZooKeeper: an ephemeral node lives as long as the process's session
    return called == "Create" and "FlagEphemeral" in _text(call.child_by_field_name("arguments"))


def import_spec(spec: Node) -> tuple[str, str | None]:
    """An import's path and the name the file uses for it: its alias, the package's own
    name, "." for a dot-import, None for a blank one (`_`)."""
    path_node = spec.child_by_field_name("path")
    path = _text(path_node).strip('"`') if path_node is not None else ""
    name = spec.child_by_field_name("name")
    if name is None:
        return path, package_name(path)
    if name.type == "dot":
        return path, "."
    return path, None if name.type == "blank_identifier" else _text(name)


_MAJOR_VERSION = regex.compile(r"v\d+")  # `github.com/jackc/pgx/v5`
_GOPKG_VERSION = regex.compile(r"\.v\d+$")  # `gopkg.in/yaml.v3`


@cache  # asked for every import of every file
def package_name(path: str) -> str:
    """The name a package is imported under by default: its path's last element, a major
    version suffix skipped (`github.com/jackc/pgx/v5` -> `pgx`, `gopkg.in/yaml.v3` -> `yaml`)."""
    parts = path.split("/")
    last = parts[-1]
    if _MAJOR_VERSION.fullmatch(last) and len(parts) > 1:
        last = parts[-2]
    return _GOPKG_VERSION.sub("", last).replace("-", "_")


def _function_scope(scope: _Scope) -> _Scope | None:
    """The scope of the declared function `scope` is in (a function literal's is its)."""
    home: _Scope | None = scope
    while home is not None and home.callee is None and home.parent is not None:
        home = home.parent
    return home if home is not None and home.callee is not None else None


# the fields a file exports of the structs its functions fill (`field <function> .<name>`)
_MAX_EXPORTED_FIELDS = 512


def _field_in(value: Any, field_name: str) -> Any:
    """The field `field_name` of a struct value (`_nested_field`): a literal's (a dict),
    or the reference to a struct followed one field further; UNKNOWN for any other."""
    if isinstance(value, dict):
        return value.get(field_name, UNKNOWN)
    if isinstance(value, Passed):
        return replace(value, member=f"{value.member}.{field_name}" if value.member else field_name)
    if isinstance(value, StructField):
        return replace(value, member=f"{value.member}.{field_name}" if value.member else field_name)
    if isinstance(value, PackageField) and (not value.path or value.path.startswith(".")):
        if not value.function and value.path:
            return UNKNOWN  # a settings key's field: its own key names it, if any
        return replace(value, path=f"{value.path}.{field_name}")
    return UNKNOWN


def _space_trimmed(call: Node) -> Node:
    """The call `strings.TrimSpace(call)` when that is all that is done to what `call` reads
    (an env helper's `strings.TrimSpace(os.Getenv(key))`), else `call` itself."""
    arguments = call.parent
    outer = arguments.parent if arguments is not None else None
    if (
        arguments is None
        or outer is None
        or arguments.type != "argument_list"
        or outer.type != "call_expression"
        or len(arguments.named_children) != 1
        or _text(outer.child_by_field_name("function")) != "strings.TrimSpace"
    ):
        return call
    return outer


def _statements(block: Node) -> list[Node]:
    """A block's statements (in a `statement_list` where the grammar has one)."""
    children = [c for c in block.named_children if c.type != "comment"]
    if len(children) == 1 and children[0].type == "statement_list":
        children = [c for c in children[0].named_children if c.type != "comment"]
    return children


def _returned_names(statement: Node) -> list[Node]:
    """The first value of each `return` within a statement (a function literal's left
    out): the name it returns (`s` of `return s, nil` or `return &s`), else the node."""
    found: list[Node] = []
    for node in walk(statement):
        if node.type != "return_statement":
            continue
        values = [c for c in node.named_children if c.type != "comment"]
        first = _items(values[0])[0] if values and _items(values[0]) else node
        found.append(_unwrap_address(first))
    return found


def _filling(statement: Node, name: str) -> Node | None:
    """The struct literal of one of the package's types a statement binds `name` to
    (`s := Settings{...}`, `s := &Settings{...}`, `var s = Settings{...}`)."""
    if statement.type == "var_declaration":
        specs = [c for c in statement.named_children if c.type == "var_spec"]
        if len(specs) != 1:
            return None
        left = specs[0].children_by_field_name("name")
        right = _items(specs[0].child_by_field_name("value"))
    elif statement.type == "short_var_declaration":
        left = _items(statement.child_by_field_name("left"))
        right = _items(statement.child_by_field_name("right"))
    else:
        return None
    if len(left) != 1 or len(right) != 1 or _text(left[0]) != name:
        return None
    literal = _unwrap_address(right[0])
    return literal if _filling_type(literal) else None


def _declared_zero(statement: Node, name: str) -> bool:
    """`var s Settings` (or `var s models.Settings`): `name` declared as a named struct
    type's zero value, its fields then set one by one (`s.URL = os.Getenv("URL")`)."""
    if statement.type != "var_declaration":
        return False
    specs = [c for c in statement.named_children if c.type == "var_spec"]
    if len(specs) != 1 or specs[0].child_by_field_name("value") is not None:
        return False
    names = specs[0].children_by_field_name("name")
    kind = specs[0].child_by_field_name("type")
    named = kind is not None and kind.type in ("type_identifier", "qualified_type")
    return named and len(names) == 1 and _text(names[0]) == name


def _filling_type(literal: Node) -> bool:
    """Whether a node is a literal of a named type: one of the package's (`Settings{...}`)
    or one another package declares (`models.ServerConfig{...}`, a loader filling the
    struct of a `models` package); keyed by field names, as a struct's are."""
    kind = literal.child_by_field_name("type") if literal.type == "composite_literal" else None
    return kind is not None and kind.type in ("type_identifier", "qualified_type")


def _assigned_field(statement: Node, name: str) -> tuple[str, Node] | None:
    """(field, value) of `name.field = value`."""
    if statement.type != "assignment_statement":
        return None
    if _text(statement.child_by_field_name("operator")) != "=":
        return None
    left = _items(statement.child_by_field_name("left"))
    right = _items(statement.child_by_field_name("right"))
    if len(left) != 1 or len(right) != 1 or left[0].type != "selector_expression":
        return None
    operand = left[0].child_by_field_name("operand")
    if operand is None or operand.type != "identifier" or _text(operand) != name:
        return None
    return _text(left[0].child_by_field_name("field")), right[0]


_WRITING = ("assignment_statement", "inc_statement", "dec_statement")


def _returns_listener(declaration: Node) -> bool:
    """Whether a function's first result is a listener (`(net.Listener, error)`)."""
    result = declaration.child_by_field_name("result")
    if result is not None and result.type == "parameter_list":
        first = result.named_children[0] if result.named_children else None
        result = first.child_by_field_name("type") if first is not None else None
    return result is not None and _text(result) in _LISTENER_TYPES


def _joined_listeners(kinds: list[Any]) -> Any:
    """The listener a function returns, from what each of its returns gives
    (_listener_kind): `unix:` where each is a Unix socket's or a named pipe's (`nil` left
    out) and one is a Unix socket's; the one ListenerOf among those where there is one (it
    resolves to `unix:` or to nothing); UNKNOWN otherwise."""
    given = [kind for kind in kinds if kind is not None]
    deferred = {kind for kind in given if isinstance(kind, ListenerOf)}
    if len(deferred) > 1 or any(k not in ("unix:", "pipe:") for k in given if k not in deferred):
        return UNKNOWN
    if deferred:
        return deferred.pop()
    return "unix:" if "unix:" in given else UNKNOWN


def _returned_whole(node: Node) -> bool:
    """Whether a name is a value its `return` gives back, itself or its address (`return s,
    nil`, `return &s, nil`): the struct handed to the caller as the function leaves it."""
    parent = node.parent
    if (
        parent is not None
        and parent.type == "unary_expression"
        and _text(parent.child_by_field_name("operator")) == "&"
    ):
        parent = parent.parent
    if parent is not None and parent.type == "expression_list":
        parent = parent.parent
    return parent is not None and parent.type == "return_statement"


def _struct_uses(
    statement: Node, name: str, reads_only: Callable[[str], bool] | None = None
) -> set[str] | None:
    """The fields of the struct `name` holds that a statement may write (assigned, their
    address taken, a method called on them); None where it may change any (the struct
    itself passed, assigned, its address or a method of its own taken). A method that
    `reads_only` says changes nothing (`s.Validate()`, `s.Limits.Validate()`) writes
    nothing."""
    written: set[str] = set()
    for node in walk(statement):
        if node.type != "identifier" or _text(node) != name:
            continue
        if _returned_whole(node):
            continue  # returned (`return s, nil`, `return &s, nil`): not changed
        parent = node.parent
        if parent is None or parent.type != "selector_expression":
            return None
        if parent.child_by_field_name("operand") != node:
            continue  # `x.name`: another's field of that name
        field_name = _text(parent.child_by_field_name("field"))
        top = parent
        while top.parent is not None and top.parent.type in (
            "selector_expression",
            "index_expression",
            "parenthesized_expression",
        ):
            top = top.parent
        above = top.parent
        if above is None:
            continue
        if above.type == "call_expression" and above.child_by_field_name("function") == top:
            called = (
                _text(top.child_by_field_name("field")) if top.type == "selector_expression" else ""
            )
            if reads_only is not None and called and reads_only(called):
                continue  # a method of the file's that changes nothing
            if top == parent:
                return None  # `s.Load()`: a method of the struct's own
            written.add(field_name)
        elif (
            (
                above.type == "unary_expression"
                and _text(above.child_by_field_name("operator")) == "&"
            )
            or above.type in _WRITING
            or (
                above.type == "expression_list"
                and above.parent is not None
                and above.parent.type in (*_WRITING, "short_var_declaration")
                and above.parent.child_by_field_name("left") == above
            )
        ):
            written.add(field_name)
    return written


# what stands for a piece of a URL's path k8slb cannot read (`_path_begun`)
_UNREAD_PATH = "..."


def _path_begun(value: Any) -> bool:
    """Whether a URL's text has begun its path (a `/` past its scheme's `//`): what
    follows (an order's ID) cannot change its host or port. A text of the environment,
    a flag or another file's value has begun it where text after that value holds one
    (`baseURL + "/orders/"`)."""
    if isinstance(value, Unknown):
        return False
    if isinstance(value, str):
        return "/" in value.replace("://", "", 1)
    if isinstance(value, EnvRef | FlagRef):
        return "/" in value.suffix.replace("://", "", 1)
    pieces = value.parts if isinstance(value, Joined | EnvText) else ()
    return any(
        at > 0 and isinstance(piece, str) and "/" in piece.replace("://", "", 1)
        for at, piece in enumerate(pieces)
        if not isinstance(piece, Unknown)
    )


def _receiver(method: Node) -> tuple[str, str] | None:
    """(name, type name) of a method's named receiver (`a *Activities`)."""
    receiver = method.child_by_field_name("receiver")
    declarations = list(receiver.named_children) if receiver is not None else []
    if len(declarations) != 1 or declarations[0].type != "parameter_declaration":
        return None
    name = declarations[0].child_by_field_name("name")
    kind = declarations[0].child_by_field_name("type")
    while kind is not None and kind.type in ("pointer_type", "parenthesized_type"):
        kind = kind.named_children[0] if kind.named_children else None
    if name is None or kind is None or kind.type != "type_identifier":
        return None  # a generic type's receiver (`Box[T]`) is not followed
    return _text(name), _text(kind)


class _Spans:
    """Where the locals of one name a server was declared in are visible, asked of a use
    in logarithmic time (thousands of same-named servers and uses in a file): a use is in
    some span when, of the spans starting at or before it, the furthest end is past it. A
    server bound where no span is known (None) is visible everywhere."""

    def __init__(self) -> None:
        self.everywhere = False
        self.spans: list[tuple[int, int]] = []  # by start
        self.furthest: list[int] = []  # the furthest end of the spans up to each one

    def add(self, span: tuple[int, int] | None) -> None:
        if span is None:
            self.everywhere = True
        elif not self.spans or span[0] >= self.spans[-1][0]:  # in the file's order
            self.spans.append(span)
            self.furthest.append(max(span[1], self.furthest[-1] if self.furthest else 0))
        else:
            self.spans.insert(bisect_right(self.spans, span), span)
            self.furthest = list(accumulate((end for _, end in self.spans), max))

    def cover(self, place: int) -> bool:
        at = bisect_right(self.spans, (place, math.inf))
        return self.everywhere or (at > 0 and self.furthest[at - 1] > place)


def _a_parameter(name: str, use: Node) -> bool:
    """Whether `name` at `use` is a parameter of the function (or literal) it is in: a
    server handed to it, not a local of another block."""
    body = _enclosing_body(use)  # its function's body: that function is its parent
    function = body.parent if body is not None else None
    parameters = function.child_by_field_name("parameters") if function is not None else None
    return parameters is not None and name in _parameter_places(parameters)


def _parameter_places(parameters: Node) -> dict[str, int]:
    """Each named parameter's place among a call's arguments (`func f(a, b string, n int)`:
    a 0, b 1, n 2); a variadic one is not at one place."""
    places: dict[str, int] = {}
    at = 0
    for declaration in parameters.named_children:
        if declaration.type != "parameter_declaration":
            continue
        names = [c for c in declaration.children_by_field_name("name") if c.type == "identifier"]
        for name in names:
            places[_text(name)] = at
            at += 1
        at += 0 if names else 1  # `func f(string)`: one unnamed
    return places


# The functions that make a context done when their first argument is, by the place of
# that context among what they return.
_DERIVING = {
    "golang.org/x/sync/errgroup.WithContext": 1,
    "context.WithCancel": 0,
    "context.WithCancelCause": 0,
}


def _items(node: Node | None) -> list[Node]:
    """The expressions of an expression or argument list."""
    if node is None:
        return []
    if node.type in ("expression_list", "argument_list"):
        return [c for c in node.named_children if c.type != "comment"]
    return [node]


def _no_address(node: Node) -> bool:
    """An argument that is no address however it is read, not worth reading for what a
    call passes (`_export`): a function literal, or a literal of no named type (a slice
    or map written in place). A named type's (`gateway.Config{OrderAddr: addr}`, `&Config
    {...}`) is read: the callee may dial a field of it (`_passed_field`)."""
    if node.type == "unary_expression":
        node = node.child_by_field_name("operand") or node
    if node.type == "composite_literal":
        return not _filling_type(node)
    return node.type == "func_literal"


def _appends_to(node: Node, name: str) -> bool:
    """`append(name, ...)`: a slice variable given itself and more."""
    if node.type != "call_expression" or _text(node.child_by_field_name("function")) != "append":
        return False
    args = _items(node.child_by_field_name("arguments"))
    return bool(args) and _text(args[0]) == name


def _held(value: Node) -> set[str]:
    """The variables an assigned value holds: itself, those a call is given (a client
    made on a connection), and those a function literal (itself, or given to the call)
    closes (`func() { conn.Close() }`: a cleanup run later)."""
    if value.type == "identifier":
        return {_text(value)}
    if value.type == "func_literal":
        return set(_CLOSED.findall(_text(value)))
    literal = _unwrap_address(value)
    if literal.type == "composite_literal":  # `&entry{conn: conn}`: the struct holds it
        return {
            _text(held)
            for element in _keyed_elements(literal)
            if (held := _keyed(element)[1]).type == "identifier"
        }
    if value.type != "call_expression":
        return set()
    found: set[str] = set()
    for arg in _items(value.child_by_field_name("arguments")):
        if arg.type == "identifier":
            found.add(_text(arg))
        elif arg.type == "func_literal":
            found |= set(_CLOSED.findall(_text(arg)))
    return found


@cache  # asked of the same few import paths for every call a file makes
def _standard(path: str) -> bool:
    """An import path of Go's standard library (`net/http`): its first element is one of
    the library's top-level packages and has no dot. A module may be named without a dot
    (`module shop` in its go.mod, imported as `shop/internal/opts`): that is followed."""
    first = path.split("/", 1)[0]
    return first in _STANDARD_ROOTS or ("/" not in path and "." not in first)


# the top-level packages of Go's standard library (`go list std`, without vendor/cmd)
_STANDARD_ROOTS = frozenset(
    {
        "archive",
        "bufio",
        "builtin",
        "bytes",
        "cmp",
        "compress",
        "container",
        "context",
        "crypto",
        "database",
        "debug",
        "embed",
        "encoding",
        "errors",
        "expvar",
        "flag",
        "fmt",
        "go",
        "hash",
        "html",
        "image",
        "index",
        "internal",
        "io",
        "iter",
        "log",
        "maps",
        "math",
        "mime",
        "net",
        "os",
        "path",
        "plugin",
        "reflect",
        "regexp",
        "runtime",
        "slices",
        "sort",
        "strconv",
        "strings",
        "structs",
        "sync",
        "syscall",
        "testing",
        "text",
        "time",
        "unicode",
        "unique",
        "unsafe",
        "weak",
    }
)


# Go's built-in functions: no file declares them, and no value is passed to another's
_BUILTINS = frozenset(
    {
        "append",
        "cap",
        "clear",
        "close",
        "complex",
        "copy",
        "delete",
        "imag",
        "len",
        "make",
        "max",
        "min",
        "new",
        "panic",
        "print",
        "println",
        "real",
        "recover",
    }
)
# the flag packages, and where their string and integer flags' definitions have the name
# and default
_FLAG_PACKAGES = frozenset({"flag", "github.com/spf13/pflag", "github.com/spf13/cobra"})
_FLAG_CALLS = {
    f"{kind}{form}": places
    for kind in ("String", "Int", "Int64", "Uint", "Uint64")
    for form, places in (("", (0, 1)), ("P", (0, 2)), ("Var", (1, 2)), ("VarP", (1, 3)))
}
# the option slices an option helper returns, by its result's element type
_OPTION_TYPES = {f"{GRPC}.ServerOption": "server", f"{GRPC}.DialOption": "dial"}


def _unwrap(element: Node) -> Node:
    return (
        element.named_children[0]
        if element.type == "literal_element" and element.named_children
        else element
    )


def _elided(element: Node) -> bool:
    """Whether a literal's element is a value whose type is elided (`{a: 1}` in `[]T{{a:
    1}}`)."""
    return (
        element.type == "literal_element"
        and element.named_child_count == 1
        and element.named_children[0].type == "literal_value"
    )


# The nodes that open a Go block: a name declared in one is visible to its end
_BLOCKS = frozenset(
    {
        "block",
        "if_statement",
        "for_statement",
        "expression_switch_statement",
        "type_switch_statement",
        "select_statement",
        "expression_case",
        "default_case",
        "type_case",
        "communication_case",
        "source_file",
    }
)


def _declared_span(call: Node) -> tuple[int, int] | None:
    """The bytes where the local a call's value is declared into (`srv :=
    grpc.NewServer()`, `var srv = ...`) is visible: from the declaration to the end of
    the block that holds it (Go's scoping); None when the call declares no local (an
    assignment to one declared elsewhere, a field)."""
    node = call.parent
    if node is not None and node.type == "expression_list":
        node = node.parent
    if node is None or node.type not in ("short_var_declaration", "var_spec"):
        return None
    start = node.start_byte
    for _ in range(MAX_DEPTH):
        node = node.parent
        if node is None:
            return None
        if node.type in _BLOCKS:  # a package's variable: in all of the file
            return (0 if node.type == "source_file" else start, node.end_byte)
    return None


def _keyed(element: Node) -> tuple[Node, Node]:
    key, value = element.child_by_field_name("key"), element.child_by_field_name("value")
    if key is None or value is None:
        key, value = element.named_children[0], element.named_children[-1]
    return _unwrap(key), _unwrap(value)


def _unwrap_address(node: Node) -> Node:
    """`x` for `&x`."""
    operand = node.child_by_field_name("operand") if node.type == "unary_expression" else None
    return operand if operand is not None else node


# `x.Close()` (or `c.conn.Close()`) in a deferred function literal: what it closes
_CLOSED = regex.compile(r"([\w.]+)\.Close\(\)")
# the test of an `if` that runs only when something failed: `err != nil`, `retErr != nil`
_ON_ERROR = regex.compile(r"^\(?\s*\w*(?:err|Err)\s*!=\s*nil\s*\)?$")


def _closed_always(deferred: Node) -> list[str]:
    """What a deferred statement closes whatever happens: not under an `if err != nil`
    (`defer func() { if err != nil { cc.Close() } }()` closes the connection only when the
    function fails; on success the caller gets it open, to keep)."""
    found: list[str] = []
    for node in walk(deferred):
        if node.type != "call_expression" or not _text(node).endswith(".Close()"):
            continue
        guard = node.parent
        while guard is not None and guard is not deferred:
            condition = guard.child_by_field_name("condition")
            if guard.type == "if_statement" and condition and _ON_ERROR.match(_text(condition)):
                break
            guard = guard.parent
        if guard is None or guard is deferred:
            found += _CLOSED.findall(_text(node))
    return found


# `c.conn.Close()` in a Close method: the field it closes
_CLOSED_FIELD = regex.compile(r"\b\w+\.(\w+)\.Close\(\)")


def _keyed_elements(literal: Node) -> list[Node]:
    body = literal.child_by_field_name("body")
    return [c for c in body.named_children if c.type == "keyed_element"] if body else []


def _literal_of(node: Node, scope: _Scope) -> Node | None:
    """The composite literal an expression is, or names (`&x`, a variable bound once)."""
    for _ in range(MAX_DEPTH):
        if node.type == "unary_expression":
            operand = node.child_by_field_name("operand")
            if operand is None:
                return None
            node = operand
        elif node.type == "identifier":
            found = scope.lookup(_text(node))
            if found is None or len(found[1]) != 1:
                return None
            node = found[1][0]
        else:
            return node if node.type == "composite_literal" else None
    return None


_FUNCTION_NODES = ("function_declaration", "method_declaration", "func_literal")
_SERVER_METHODS = ("Serve", "Stop", "GracefulStop")  # a server's held in a field: _method
# a call's arguments past which a server among them is not followed into the function
_MAX_ARGUMENTS = 32
# the names a body's uses are found by their bytes for (_Collector.uses_of); then indexed
_MAX_SCANS = 8
_MAX_SCANNED = 256  # the places of a name's bytes looked at before it is indexed
# The nodes the reader's binding reads (_Collector._bind), each captured as `n`; the
# blocks are the `if`s' consequences, whose assignments may give a default.
_BOUND_KINDS = (
    *_FUNCTION_NODES,
    "short_var_declaration",
    "assignment_statement",
    "var_spec",
    "const_spec",
    "range_clause",
    "call_expression",
    '(unary_expression operator: "<-")',  # a receive: what parse_shutdown reads
    "composite_literal",
)
_STRINGS = ("interpreted_string_literal", "raw_string_literal")
_place = itemgetter(0, 1, 2)  # a capture's place in the walk (_Collector._bind)
_end_byte = attrgetter("end_byte")


@cache
def _bound_query(strings: bool, drains: bool) -> str:
    """The binding's query: the strings only where one may hold a URL or a registry's
    target, a health server's drains only where one may be set."""
    kinds = _BOUND_KINDS + (_STRINGS if strings else ()) + (("field_identifier",) if drains else ())
    alternatives = " ".join(kind if kind[0] == "(" else f"({kind})" for kind in kinds)
    return (
        f"[{alternatives}] @n (if_statement condition: (_) @condition consequence: (block) @n)"
        " (import_spec) @import"
    )


def _in_place(use: Node) -> bool:
    """A use of a variable that changes it in place (`_Collector._changed_in_place`): the
    operand of a field or an index that is assigned or stepped (`x.f = v`, `x[i] = v`,
    `x.n++`), or of `&` (`&x`, `&x.f`), up to MAX_DEPTH selectors deep."""
    node = use
    for _ in range(MAX_DEPTH):
        parent = node.parent
        if parent is None:
            return False
        kind = parent.type
        if kind == "unary_expression":
            return _text(parent.child_by_field_name("operator")) == "&"
        if kind in ("selector_expression", "index_expression"):
            if parent.child_by_field_name("operand") != node:
                return False
        elif kind != "parenthesized_expression":
            if node is use:
                return False
            if kind in ("inc_statement", "dec_statement"):
                return True
            holder = parent.parent
            return (
                kind == "expression_list"
                and holder is not None
                and holder.type == "assignment_statement"
                and holder.child_by_field_name("left") == parent
            )
        node = parent
    return False


def _written(use: Node) -> bool:
    """A use of a variable that gives it a value: assigned (`x = v`, `x += v`), declared
    again (`x := v`), or stepped (`x++`)."""
    parent = use.parent
    if parent is None:
        return False
    if parent.type in ("inc_statement", "dec_statement"):
        return True
    holder = parent.parent
    return (
        parent.type == "expression_list"
        and holder is not None
        and holder.type in ("assignment_statement", "short_var_declaration")
        and holder.child_by_field_name("left") == parent
    )


def _bounds_graceful_stop(call: Node, receiver: str, memo: dict[int, set[str]]) -> bool:
    """Whether the function (a declaration, with its nested literals) that calls
    `receiver.Stop()` also calls `receiver.GracefulStop()`; `memo` keeps, by function,
    what it calls GracefulStop on (walked once, not once a Stop)."""
    function = call.parent
    while function is not None and function.type not in (
        "function_declaration",
        "method_declaration",
    ):
        function = function.parent
    if function is None:
        return False
    graceful = memo.get(function.id)
    if graceful is None:
        graceful = memo[function.id] = {
            text[: -len(".GracefulStop")]
            for node in walk(function)
            if node.type == "call_expression"
            and (text := _text(node.child_by_field_name("function"))).endswith(".GracefulStop")
        }
    return receiver in graceful


def _result_names(body: Node) -> set[str]:
    """The named results of the function whose body this is (`(db *sql.DB, err error)`)."""
    function = body.parent
    result = function.child_by_field_name("result") if function is not None else None
    if result is None or result.type != "parameter_list":
        return set()
    return {_text(n) for n in walk(result) if n.type == "identifier"}


def _server_use(node: Node) -> bool:
    """A use of a server's name that hands it to no other code (_server_handed): a call of
    its methods, its binding (`s := ...`, `s = ...`, `var s *grpc.Server`), or the first
    argument of a call of a `Register...` function."""
    if _only_method_called(node):
        return True
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "var_spec":
        return parent.child_by_field_name("name") == node or node in parent.children_by_field_name(
            "name"
        )
    if parent.type == "expression_list" and parent.parent is not None:
        holder = parent.parent
        if holder.type in ("short_var_declaration", "assignment_statement"):
            return holder.child_by_field_name("left") == parent
        if holder.type != "argument_list":
            return False
        parent = holder
    if parent.type == "argument_list" and parent.named_children[:1] == [node]:
        call = parent.parent
        called = call.child_by_field_name("function") if call is not None else None
        name = called.child_by_field_name("field") if called is not None else None
        return _text(name if name is not None else called).startswith("Register")
    return False


def _only_method_called(node: Node) -> bool:
    """`svc` of `svc.Role.Create(ctx, req)`: a selector chain whose end is called."""
    top = node
    while top.parent is not None and top.parent.type == "selector_expression":
        if top.parent.child_by_field_name("operand") != top:
            return False
        top = top.parent
    parent = top.parent
    return (
        top is not node
        and parent is not None
        and parent.type == "call_expression"
        and parent.child_by_field_name("function") == top
    )


def _enclosing_body(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type != "block":
        parent = parent.parent
    while (
        parent is not None
        and parent.parent is not None
        and parent.parent.type
        not in (
            "function_declaration",
            "method_declaration",
            "func_literal",
        )
    ):
        parent = parent.parent
    return parent


def _guards_default(condition: Node, name: str, scope: _Scope) -> bool:
    """`x == ""` or `!ok`: the assignment under it gives `x` its default (`!exists` too,
    where `exists` last came with `x`: `x, exists := os.LookupEnv("X")`)."""
    text = "".join(_text(condition).split())
    if text in (f'{name}==""', f'""=={name}', "!ok", f"len({name})==0"):
        return True
    if text.startswith("!"):
        teller = text[1:]
    elif text.endswith("!=nil"):  # `x, err = strconv.Atoi(s)` failed: `x` gets its default
        teller = text.removesuffix("!=nil")
    else:
        return False
    home: _Scope | None = scope
    while home is not None:  # the `if`'s own scope first, then the enclosing ones
        told = home.tells.get(teller)
        if told is not None:
            return told == name
        home = home.parent
    return False


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
        return left / right
    return UNKNOWN


_VERB = regex.compile(r"(%[sdv%])")
# an environment variable's name as programs spell them (`METADATA_HOST`): what a call of
# another file's function must be given first to be asked whether it reads one
_ENV_NAME = regex.compile(r"^[A-Z_][A-Z0-9_]*$")


def _sprintf(template: str, values: list[Any]) -> Any:
    """`fmt.Sprintf("%s:%d", host, port)` with %s, %d and %v; others leave it unknown."""
    parts = _sprintf_parts(template, values)
    return joined(parts) if parts is not None else UNKNOWN


def _sprintf_parts(template: str, values: list[Any]) -> list[Any] | None:
    """The parts `fmt.Sprintf` joins: the template's text and each value in its verb's
    place (%s, %d and %v); None past another verb."""
    parts: list[Any] = []
    pieces = _VERB.split(template)
    remaining = iter(values)
    for piece in pieces:
        if piece == "%%":
            parts.append("%")
        elif piece in ("%s", "%d", "%v"):
            value = next(remaining, UNKNOWN)
            parts.append(str(value) if _number(value) else value)
        elif "%" in piece:
            return None
        else:
            parts.append(piece)
    return parts


def same_go_code(old: bytes, new: bytes) -> bool:
    """Whether two Go texts say the same but for their comments (`--add-noqa`)."""
    return same_code(parser, old, new)
