"""The facts the code rules read, whatever the language: gRPC channels and servers, HTTP
clients, database pools, signal handling, health services and HTTP routes, each with its
target, options and place, resolved as far as static analysis can follow them. One
front-end per language produces them (`python.py` for Python, `go.py` for Go); rules
read facts and never a syntax tree, and know the language only through `language`, for
their wording.

A value is a literal (str, int, float, bool, None, list, dict), an `EnvRef` (read from
the environment, with its default), or `Unknown`: what cannot be followed is unknown,
never missing. Options are keyed by gRPC's core names (`grpc.max_connection_age_ms`, in
milliseconds) in every language.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from k8slb.code.budget import MAX_CHOICES, MAX_PARTS, MAX_TEXT
from k8slb.core import regex
from k8slb.core.findings import Problem
from k8slb.core.record import record
from k8slb.reading.markers import Marker

# Byte strings one of which a file must contain to be worth a CST (cheap pre-check).
WATCHED = (
    b"grpc",
    b"requests",
    b"httpx",
    b"aiohttp",
    b"urllib3",
    b"elasticsearch",
    b"opensearchpy",
    b"sqlalchemy",
    b"sqlmodel",
    b"psycopg",
    b"asyncpg",
    b"SIGTERM",
    b"uvicorn",  # uvicorn.run installs a SIGTERM handler
    b"hypercorn",  # so does hypercorn's serve()
    b"gunicorn",  # and gunicorn's Arbiter, an application's run()
    # web frameworks: the routes a probe reaches
    b"flask",
    b"fastapi",
    b"starlette",
    b"django",
    # service registries' clients (a registration) and resolvers' schemes
    b"consul",
    b"nacos",
    b"eureka",
    b"kazoo",
    b"zk://",
    b"etcd://",
)


def worth_parsing(data: bytes) -> bool:
    return any(word in data for word in WATCHED)


# A name that makes a function, method or type a test's stand-in (`runFakeServer`,
# `GrpcMockStore`, `mock_peer`): Fake or Mock as a word of it, in camel case or snake
# case (not `Mockingbird`). Not "stub": gRPC names its clients so.
STAND_IN_NAME = regex.compile(r"(?:^|_|[a-z0-9])(?:[Ff]ake|[Mm]ock)(?:$|_|[A-Z0-9])")


def stand_in_name(name: str) -> bool:
    """Whether STAND_IN_NAME finds a fake's or a mock's name in `name`, asked of RE2 only
    where its words may be (`ake` or `ock`: RE2's binding costs some 2 µs a search, and
    every function of a file is asked)."""
    return ("ake" in name or "ock" in name) and STAND_IN_NAME.search(name) is not None


def is_test_path(path: str) -> bool:
    # PurePath(path).parts, less a root, without making a path object (profiled: 5 % of
    # the cost of the Python reader on the bench's small files)
    parts = (
        [p for p in path.split("/") if p and p != "."] if os.sep == "/" else PurePath(path).parts
    )
    name = parts[-1] if parts else path
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(part in ("tests", "test", "testing") for part in parts[:-1])
    )


# A mention's caller (CodeFacts.mentions), when it is no top-level function's name:
MENTIONED_OUTSIDE = "*"  # outside any function (a package variable's value): a program's
MENTIONED_BY_TEST = "-"  # in a test file, or in a function given a test's handle
# The facts of a server a program runs, which a function only tests call holds for no pod
# (projects.test_only_code)
SERVING_FACTS = ("servers", "listens", "http_listens", "waits", "stops")


@record
class Unknown:
    """A value static analysis cannot know (a parameter, a call, an attribute)."""


UNKNOWN = Unknown()


class _GivenBetween:
    """A value given from outside the code (an env variable, a flag), with the text the
    code writes around it (`fmt.Sprintf(":%d", *port)`): its `prefix` and `suffix`."""

    default: Any
    prefix: str
    suffix: str

    def filled(self, value: str) -> str:
        return self.prefix + value + self.suffix

    @property
    def default_text(self) -> str | None:
        return self.filled(self.default) if isinstance(self.default, str) else None


@record
class EnvRef(_GivenBetween):
    """`prefix + os.environ[name] + suffix`, falling back on `default` when unset."""

    name: str
    default: Any = None  # a str, None (no default), UNKNOWN, or an EnvRef (one more variable)
    prefix: str = ""
    suffix: str = ""
    # read in any case (pydantic's settings, case-insensitive by default): a workload's
    # `nidx_addr` sets the `NIDX_ADDR` named here, where none sets it as spelt
    any_case: bool = False
    # where the default comes from, where it is no literal of the code (`datahub.address
    # in etc/app.toml:2`, the settings file viper reads): for messages
    default_from: str = ""


@record
class EnvText:
    """A text made of several environment values and the text between them (`host + ":" +
    port`, each from `System.getenv`): each value as the same container sets it, else its
    default. `parts` are strings and bare EnvRefs (no prefix or suffix), never two strings
    in a row."""

    parts: tuple[str | EnvRef, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(part.name for part in self.parts if isinstance(part, EnvRef))

    def filled(self, values: Mapping[str, str | None]) -> str | None:
        """The text with each variable's value (from `values`, else its default), or None
        when one has neither."""
        text: list[str] = []
        for part in self.parts:
            value = part if isinstance(part, str) else values.get(part.name)
            if value is None and isinstance(part, EnvRef):
                value = part.default if isinstance(part.default, str) else None
            if value is None:
                return None
            text.append(value)
        return "".join(text)

    @property
    def default_text(self) -> str | None:
        return self.filled({})


@record
class FlagRef(_GivenBetween):
    """A command-line flag's value (`flag.String("address", "localhost:50051", ...)`,
    pflag's and cobra's `StringVar(&addr, "address", ...)`): what the containers that run
    the code pass as `--address=...` (or `-address ...`) in their command and args, else
    `default` (a str, or UNKNOWN; an int flag's default as its text), between `prefix` and
    `suffix`. A library that reads a flag under other names or from the environment too
    (urfave/cli's `Aliases`, `EnvVars`) gives them: `aliases`, and `env`, the variables
    read in turn where no argument sets the flag (its value first, then the first
    variable set, then the default)."""

    name: str
    default: Any = None
    prefix: str = ""
    suffix: str = ""
    aliases: tuple[str, ...] = ()
    env: tuple[str, ...] = ()


# What a Node module exports for each of its functions that returns a NestJS gRPC
# transport object (`nest grpc <function>`: parse_nest.py), for the modules that give what
# it returns to NestJS: the server a `made_by` of that key stands for is one.
OPTION_HELPER = "nest grpc"
GRPC_TRANSPORT = "Transport.GRPC"


@record
class Imported:
    """A name imported from another module (`from .config import ADDR`: level 1, module
    `config`, name `ADDR`), resolved once every module is parsed (imported.py); a value
    no scanned module defines becomes UNKNOWN there. Rules never see one.

    `by_path`: `module` is a path from the importer's folder, as Node's `require('./config')`
    names one (projects.node_module_files). A dotted `name` is a member of an exported
    object (`default.ADDR`: `config.ADDR` of `import config from './config'`)."""

    level: int
    module: str
    name: str
    by_path: bool = False


@record
class Setting:
    """A value a framework injects from its settings (Spring's `@Value("${key:default}")`):
    what the files of language `source` in the same project set `key` to (each file's
    `exports`, keyed as that language spells keys), or else the environment variable `env`,
    else `default`. Resolved with the imported names (imported.py); rules never see one."""

    source: str
    key: str
    env: str
    default: str | None


@record
class BoundProperty:
    """A property of a class Spring binds from its settings (`@ConfigurationProperties(
    "backend")` on `BackendProperties`, read as `props.getHost()`): the `Setting` the module
    that declares the class exports for it (`BackendProperties.host`), resolved with the
    imported names (imported.py); rules never see one."""

    type_name: str
    name: str


@record
class Joined:
    """A string built from parts one of which is `Imported` or a `Setting`
    (`f"{HOST}:50051"`)."""

    parts: tuple[Any, ...]


@record
class ListenerOf:
    """The listener a Go function of another file returns, served by the file that calls it
    (`lis, err := util.ListenLocalSocket(path)`, then `Serve(lis)`): `unix:` where each
    scanned file of the package of import path `package` ("" for the caller's own) that
    declares it returns a Unix socket's listener (its `listener <function>` export), else
    UNKNOWN. Resolved with the imported names (imported.py); rules never see one."""

    package: str
    function: str


@record
class FieldNetwork:
    """A Go listener `net.Listen(x.F, address)` whose network is read from the field `F`
    (`s.options.Network`): the address, as a Unix socket's (`unix:PATH`, `unix:` where
    the path is not read) where each write of the field in the project's files (their
    `field sources` export: struct literals, assignments, flag bindings), followed from
    field to field, gives a Unix network and one at least is a command-line flag whose
    default is `unix` (`fs.StringVar(&c.Network, "network", "unix", ...)`); else the
    address. Resolved with the imported names (imported.py); rules never see one."""

    field: str
    address: Any


# A Go file's export of where its fields' values come from (`field sources`): by field
# name, each write as ("text", value), ("field", name read), ("flag", flag's name,
# default's source) or ("other",); FIELD_SOURCES_CUT when the file had more than its budget
FIELD_SOURCES = "field sources"
FIELD_SOURCES_CUT = "field sources cut"


@record
class Passed:
    """A Go function's parameter that no call in its own file gives a value: what the
    calls of `function` in the package of folder `package` pass at `index`, in any file of
    the scanned tree (a same-package file's `start(addr)`, a `main.go` that calls
    `mmf.Start(queryAddr)`), joined as the file's own calls would be (one_of). Resolved
    with the imported names (imported.py); rules never see one."""

    package: str  # the folder of the function's file
    function: str
    index: int
    # a field of the struct passed (`config.AuthAddr` of `NewClients(config ClientConfig)`):
    # the field the calls' struct literals set
    member: str = ""
    # the text the function sets the parameter to when it is empty (`if conf == "" { conf
    # = defaultConfig }`): a call passing `""` gives that; None when it sets none
    empty: str | None = None


@record
class FileKey:
    """A property of an object the code read from somewhere k8slb does not follow, named
    `key` (`processor.addr`, `config.addr` of a parsed configuration file): what the YAML
    or JSON files the containers that run the code mount from a ConfigMap or a Secret set
    at a key of that name, at any depth (addresses_files.py). A weaker link than an
    environment variable's: the file the code reads is not known, only the key's name."""

    key: str


@record
class SettingsKey:
    """A field of a struct viper fills from its settings file (`viper.Unmarshal(&cfg)`):
    what the YAML file the program reads sets at the dotted `key` (the fields' `mapstructure`
    tags, or their names, from the outermost struct in). The file is named `name` (its
    extension left out; None when the code builds it) in one of `folders` (`AddConfigPath`,
    `SetConfigFile`'s folder); a ConfigMap mounted there gives it (addresses.py). With
    `viper.AutomaticEnv()`, the environment variable `env` (the key upper-cased, after
    `SetEnvPrefix`'s prefix and through `SetEnvKeyReplacer`'s replacements) overrides the
    file, for a key viper knows of (a file sets it, or `SetDefault`, or `BindEnv`: then
    `bound`, and `env` is the variable it names, else the key's own after the prefix);
    `default` is what `SetDefault` gives it."""

    key: str
    folders: tuple[str, ...]
    name: str | None
    env: str | None = None
    default: str | None = None
    bound: bool = False


@record
class PackageValue:
    """A package-level constant or variable of another Go package of the scanned code
    (`grpc.Dial(config.DbAddr)`): the `value <name>` export of the one file of the
    package of import path `package` that declares it. Resolved with the imported names
    (imported.py); one no scanned file declares is UNKNOWN; rules never see one."""

    package: str
    name: str


@record
class PackageEnv:
    """A call of a Go function another file declares, given a variable's name (in
    capitals) and a default (`helpers.GetEnv("ADDR", "backend:50051")`, or `getEnv(...)` of the same
    package): an environment read with that default (an EnvRef) where a scanned file of
    the package of import path `package` ("" for the caller's own) declares the function
    an env helper (its `env <function>` export: it returns the variable, else the
    default), else UNKNOWN. Resolved with the imported names (imported.py); rules never
    see one."""

    package: str
    function: str
    name: str
    default: Any  # a str, or UNKNOWN


@record
class ViperKey:
    """A key read from viper's own registry by name (`viper.GetInt("APP_PORT")`), which
    another package of the program may have told to read the environment
    (`viper.AutomaticEnv()` in a config package's init): the variable the viper calls of
    the files each program that links the reader in name for it (an EnvRef, with
    `SetDefault`'s value where no settings file is read), else UNKNOWN. Resolved with the
    imported names (imported.py); rules never see one."""

    key: str


# What a Go file's viper calls say of the environment (`viper environment`): read with the
# other files of each program that links it in (imported.py, ViperKey)
VIPER_ENVIRONMENT = "viper environment"


@record
class PackageField:
    """A field of a struct another Go package's function returns (`cfg, err :=
    config.Load()`, then `cfg.Backend.Address`): the `field <path>` export (`path` the
    field read and the one that holds it, `Backend.Address`, or `.Address`) of the one
    file of the package of import path `package` that declares it, as the struct's
    settings fill it (a SettingsKey). Resolved with the imported names (imported.py); one
    no scanned file exports is UNKNOWN; rules never see one."""

    package: str
    path: str
    # the function that returned it (`config.FromEnv`), "" where not known: a struct it
    # fills from the environment is exported under its name (`field FromEnv .URL`), and
    # `path` is "" for the whole struct, passed on to another function (imported.py)
    function: str = ""


@record
class StructField:
    """A field of a method's receiver that its own file never writes (`a.OrderURL` in a
    method of `Activities`): what the struct literals of that type in the other files of
    its package set (`&Activities{OrderURL: cfg.OrderURL}`, their `literal <type>`
    exports), joined as a parameter's callers are (one_of). Resolved with the imported
    names (imported.py); one no literal sets is UNKNOWN; rules never see one."""

    package: str  # the folder of the method's file
    type_name: str
    field: str
    # a field of the struct the field holds (`Upstreams.Addr` of `c.Config.Upstreams.Addr`
    # for the field `Config`): followed as a parameter's member is (Passed)
    member: str = ""


@record
class Constructed:
    """A Java constructor's parameter that a field keeps (`this.url = url`): what the
    `new Type(...)` calls of the module's project with as many arguments pass at `index`,
    in any of its files (a `@Bean` method's `@Value` parameter), joined as a Go function's
    callers are (one_of). Resolved with the imported names (imported.py); rules never see
    one."""

    type_name: str
    index: int
    count: int  # the constructor's parameters: a call of another constructor passes others


@record
class Helper:
    """Options a Go function of another file returns (`grpc.NewServer(newOpts(p)...)`,
    `opts := util.DialOptions(); grpc.Dial(t, opts...)`): the `options <function>` export
    of the file that declares it, in the package of `package` (an import path; "" for the
    importer's own). Resolved with the imported names; one no scanned file declares leaves
    the options incomplete."""

    package: str
    function: str


# A Go file's export of the fields it sets other than in a struct literal (`s.URL = v`):
# a sorted list of names, or None for any (StructField is unknown for each)
ASSIGNED_FIELDS = "assigned fields"

# A Go file's gRPC servers handed to a function of the tree (`handed servers`: each as
# (package, function, argument's place, server's name)), and each function's parameters of
# type http.Handler (`handles PACKAGE FUNCTION`: their places): a server given where an
# http.Handler is expected is served as one (imported.py adds it to `http_served`)
HANDED_SERVERS = "handed servers"
HANDLER_PARAMETERS = "handles"
# Go: a function's parameter its result serves as a gRPC server (an http.Server whose
# handler calls its ServeHTTP, or such a handler): (what it makes, the places)
SERVED_PARAMETERS = "serves"

# A Go file's export of the scheme it sets for targets with none, for every grpc.Dial of
# the programs that link it in (`resolver.SetDefaultScheme("dns")`, in an `init()` as a rule)
DEFAULT_SCHEME = "default scheme"


@record
class Alternatives:
    """One of several values: a function's parameter whose call sites pass different ones
    (`dial(os.Getenv("GEO_ADDR"))` and `dial(os.Getenv("RATE_ADDR"))`). A reader makes one
    fact per value (`choices`), so each address is judged on its own; no fact holds one."""

    values: tuple[Any, ...]


def one_of(values: list[Any]) -> Any:
    """The value of a parameter given `values` by its call sites: the value they all pass,
    Alternatives when they differ (an unknown one among them stays one of them: the
    others are still dialled), UNKNOWN with none or past MAX_CHOICES."""
    distinct: list[Any] = []
    for value in values:
        for choice in choices(value):
            if choice not in distinct:
                distinct.append(choice)
                if len(distinct) > MAX_CHOICES:
                    return UNKNOWN
    if not distinct:
        return UNKNOWN
    return distinct[0] if len(distinct) == 1 else Alternatives(tuple(distinct))


def or_empty(given: Any, empty: Any) -> Any:
    """A parameter's value where its function sets it to `empty` when it is `""` (`if conf
    == "" { conf = defaultConfig }`): that for `""`, a text read for itself, and one of the
    two for what k8slb cannot read (None: no such setting, the value as given)."""
    if empty is None:
        return given
    values: list[Any] = []
    for choice in choices(given):
        if choice == "":
            values.append(empty)
        elif isinstance(choice, str):
            values.append(choice)
        else:
            values += [choice, empty]
    return one_of(values)


def choices(value: Any) -> list[Any]:
    """The values a value may be: each of its Alternatives, or itself."""
    return list(value.values) if isinstance(value, Alternatives) else [value]


def settled(value: Any) -> Any:
    """A value where only one may stand (an option, an export): Alternatives are unknown."""
    return UNKNOWN if isinstance(value, Alternatives) else value


def add_kept(found: list[tuple[Any, bool]], values: Iterable[Any], kept: bool) -> None:
    """A caller's values added to those of the callers before it, each value once: kept
    (for the process) when any caller that passes it keeps what it makes."""
    for value in values:
        known = next((i for i, (v, _) in enumerate(found) if v == value), None)
        if known is None:
            found.append((value, kept))
        elif kept:
            found[known] = (value, True)


def leading_text(parts: Iterable[Any]) -> str:
    """The literal text a text's parts begin with, up to the first that is no string (a
    value k8slb cannot read, an environment value)."""
    text: list[str] = []
    for part in parts:
        if not isinstance(part, str):
            break
        text.append(part)
    return "".join(text)[:MAX_TEXT]


# Where a server listens when its listener is in the process's memory (grpc-go's
# `bufconn.Listen(size)`): only a dialer of the same process reaches it, no network does
IN_MEMORY = "memory:"


def listen_head(text: str) -> str | None:
    """Where a server listens as the literal text its address begins with says, when the
    rest is not read (`fmt.Sprintf("localhost:%v", port)`, `'unix://' + path`): `HOST:`,
    its port left out (no port is read from it), when the text holds the whole host and
    the colon after it; `unix:` for a Unix socket whose path is not read; None when the
    text does not say the host (`:` alone, a host cut short, nothing)."""
    if text.startswith(("unix:", "unix-abstract:")):
        return "unix:"
    host, colon, port = text.rpartition(":")
    if not colon or not host or (port and not port.isdigit()):
        return None
    bracketed = host.startswith("[") and host.endswith("]") and "[" not in host[1:]
    if not (bracketed or ":" not in host) or any(c.isspace() or c in "/@?#" for c in host):
        return None
    return host + ":"


def joined(parts: list[Any]) -> Any:
    """Concatenate string parts; one EnvRef among them becomes its prefix/suffix; a part
    imported from another module defers the result until it is resolved (one flat Joined:
    a text that holds itself twice, over and over, stays as long as its pieces). A text
    past its budget (budget.py: MAX_TEXT characters, MAX_PARTS pieces) is unknown. A part
    that is one of Alternatives makes the text one of as many (MAX_CHOICES at most)."""
    at = next((i for i, p in enumerate(parts) if isinstance(p, Alternatives)), None)
    if at is not None:
        if math.prod(len(choices(p)) for p in parts) > MAX_CHOICES:
            return UNKNOWN  # texts of many parameters: not a product of their values
        return one_of([joined([*parts[:at], c, *parts[at + 1 :]]) for c in parts[at].values])
    if any(
        isinstance(
            p,
            Imported
            | Setting
            | BoundProperty
            | Joined
            | Passed
            | Constructed
            | PackageValue
            | PackageEnv
            | PackageField
            | StructField
            | ViperKey,
        )
        for p in parts
    ):
        flat = tuple(q for p in parts for q in (p.parts if isinstance(p, Joined) else (p,)))
        return Joined(flat) if len(flat) <= MAX_PARTS else UNKNOWN
    flags = [p for p in parts if isinstance(p, FlagRef)]
    if len(flags) == 1 and all(isinstance(p, str) for p in parts if p is not flags[0]):
        return _flag_text(parts, flags[0])
    if any(not isinstance(p, str | EnvRef | EnvText) for p in parts):
        return UNKNOWN
    envs = [p for p in parts if isinstance(p, EnvRef)]
    if len(envs) > 1 or any(isinstance(p, EnvText) for p in parts):
        return _env_text(parts)
    size = sum(len(p) if isinstance(p, str) else len(p.prefix) + len(p.suffix) for p in parts)
    if size > MAX_TEXT:
        return UNKNOWN
    if not envs:
        return "".join(parts)
    at = parts.index(envs[0])
    prefix, suffix = "".join(parts[:at]), "".join(parts[at + 1 :])
    env = envs[0]
    return EnvRef(env.name, env.default, prefix + env.prefix, env.suffix + suffix)


def _flag_text(parts: list[Any], flag: FlagRef) -> Any:
    """Text around one command-line flag's value (`":" + strconv.Itoa(*port)`): the flag
    with that text as its prefix and suffix, within the budget (budget.py: MAX_TEXT)."""
    at = next(i for i, p in enumerate(parts) if p is flag)
    prefix = "".join(parts[:at]) + flag.prefix
    suffix = flag.suffix + "".join(parts[at + 1 :])
    if len(prefix) + len(suffix) > MAX_TEXT:
        return UNKNOWN
    return FlagRef(flag.name, flag.default, prefix, suffix, flag.aliases, flag.env)


def _env_text(parts: list[Any]) -> Any:
    """Text around several environment values, flattened to strings and bare EnvRefs (an
    EnvRef's prefix and suffix become the text beside it); within the budget (budget.py:
    MAX_TEXT characters, MAX_PARTS pieces), else unknown."""
    flat: list[str | EnvRef] = []
    for part in parts:
        pieces: tuple[Any, ...] = (
            part.parts
            if isinstance(part, EnvText)
            else (part.prefix, EnvRef(part.name, part.default), part.suffix)
            if isinstance(part, EnvRef)
            else (part,)
        )
        for piece in pieces:
            if isinstance(piece, str) and flat and isinstance(flat[-1], str):
                flat[-1] += piece
            elif piece != "":
                flat.append(piece)
    size = sum(len(p) for p in flat if isinstance(p, str))
    if size > MAX_TEXT or len(flat) > MAX_PARTS:
        return UNKNOWN
    return EnvText(tuple(flat))


@record
class Loc:
    path: str
    line: int
    column: int


@record
class Option:
    key: str
    value: Any
    loc: Loc


@record
class Options:
    """The gRPC options of a call. `complete` is False when some of them could not be
    followed: then an option that is not listed may still be set."""

    complete: bool
    entries: tuple[Option, ...] = ()
    # Where a fix can add options: the one list or tuple literal that holds them all...
    literal: Loc | None = None
    # ... or, when the call passes no options at all, the call itself.
    given: bool = True
    # options functions of other files return (facts.Helper), added once resolved
    pending: tuple[Helper, ...] = ()

    def get(self, key: str) -> Option | None:
        found = [entry for entry in self.entries if entry.key == key]
        return found[-1] if found else None  # gRPC keeps the last of repeated keys

    def __add__(self, other: Options) -> Options:
        return Options(
            self.complete and other.complete,
            self.entries + other.entries,
            pending=self.pending + other.pending,
        )


NO_OPTIONS = Options(complete=True)
NOT_GIVEN = Options(complete=True, given=False)
UNKNOWN_OPTIONS = Options(complete=False)


# The default scheme of a grpc-spring-boot-starter address a placeholder gives whole
# (`${FLIGHT_ADDRESS:static://localhost:50051}`): its scheme is known once it is resolved
# (model/addresses.py reads `static://host:port` as passthrough, any other as dns)
STARTER = "starter"
# The default schemes of a nice-grpc channel's address (`createChannel('http://api:8080')`):
# an `http://` or `https://` origin or a bare host is dialled as `host:port`, its port 80
# (443 for https, or with TLS credentials) when it names none; any other scheme is grpc-js's
# (model/addresses.py)
NICE_ADDRESS = "nice-grpc"
NICE_TLS_ADDRESS = "nice-grpc+tls"
# The default scheme of a connect-node transport's `baseUrl` (`http://orders:9001/`): a URL,
# whose origin the transport's one HTTP/2 connection dials (port 80, or 443 for https,
# when it names none); a text that is no http(s) URL dials nothing k8slb knows
CONNECT_ADDRESS = "connect-node"


@record
class Channel:
    loc: Loc
    factory: str  # qualified name, e.g. grpc.aio.insecure_channel
    target: Any
    options: Options
    long_lived: bool
    target_argument: tuple[int, str] | None = None  # (index, keyword) of a literal target
    # The resolver a target with no scheme gets: grpcio and Go's grpc.NewClient use `dns`
    # (every address of the name), Go's grpc.Dial `passthrough` (the system resolver: one).
    default_scheme: str = "dns"
    # A Go factory that hands the channel to its callers in other files (returned, or in a
    # returned struct whose Close closes it): kept unless every scanned call of it closes
    # what it gets before its function returns (a channel per call; code/imported.py)
    kept_by: Helper | None = None
    # Where the factory's callers close what it gives in some Go programs and keep it in
    # others: the programs this one stands for, each by the first file of its top package
    # (code/imported_programs.py; its target is what their calls pass). () for every one.
    programs: tuple[str, ...] = ()
    # the other places that inject this same channel (a Spring starter's client name in
    # several classes: one channel per name), reported with it at its first
    also: tuple[Loc, ...] = ()
    # where the channel is kept, when that is not where it is made (KLB102 names it): "in
    # `_CHANNELS[name]`", "by the caller at line 14, in `self.channel`"; "" when not read
    kept: str = ""
    # Python: a call of a function of another module (`get_channel(settings.ADDR)`, its
    # `Imported` origin) whose result is kept, with what it passes (`passed`: (place,
    # value) pairs, a place an index or a keyword): a channel where that module's function
    # makes one from a parameter and returns it (its `channel <function>` export, a
    # ChannelHelper), else none. Resolved in imported.py; rules never see one.
    made_by: Imported | None = None
    passed: tuple[tuple[int | str, Any], ...] = ()
    # where another module's function made it ("`get_channel` at lib/grpc.py:12"), for a
    # channel reported at its caller's call; "" for one made on its own line
    made_in: str = ""


@record
class ChannelHelper:
    """A Python module's function that makes a channel of its parameter and returns it
    (`def get_channel(address): return grpc.insecure_channel(address, ...)`): the
    parameter's place and name, the factory and its options, and where it is made. Its
    `channel <function>` export: the calls of other modules that keep what it returns are
    channels of what they pass (Channel.made_by)."""

    index: int | None  # None: keyword-only
    name: str
    factory: str
    options: Options
    loc: Loc


@record
class Server:
    loc: Loc
    factory: str
    options: Options
    name: str | None  # the variable it is bound to (`server`, `self._server`)
    # What places each call its clients send over the pods, when not the connection: a
    # grpc-go xDS server's clients are xDS clients (proxyless), which get its pods from the
    # control plane and balance every call, so no connection age spreads them.
    balanced_by: str | None = None
    # A server a function of another module makes and returns (`const server =
    # createServer(...)`, imported): that module's `server <function>` export, which names
    # the server's factory; resolved in imported.py (a function that returns none makes
    # none). Rules never see one. Its options are judged where it is made.
    made_by: Imported | None = None
    # Go: code k8slb does not follow may stop it: it is held in a struct's field or a
    # package variable, or its function hands it on (to a call other than a service's
    # registration, a return, another variable)
    handed: bool = False
    # Python: the only service registered on it is the standard health service
    # (`add_HealthServicer_to_server`, in its function or a function of the module it is
    # handed to), and its name goes nowhere else: only probes call it
    health_only: bool = False


@record
class Wait:
    """A started server being waited on: `wait_for_termination()`, a sleep loop..."""

    loc: Loc
    server: str | None
    how: str
    awaited: bool = False  # `await server.wait_for_termination()` (grpc.aio)
    # a SIGTERM handler registered after this wait in the same function: the wait returns
    # only when the server stops, so the handler is never in place while it serves
    late_handler: Loc | None = None
    # Go: a net/http server that serves the gRPC server as its handler (through
    # `ServeHTTP`): `http.ListenAndServe(addr, h2c.NewHandler(s, ...))`, `srv.Serve(lis)`
    # of an `http.Server{Handler: ...}`. Its stop is the HTTP server's `Shutdown`: grpc-go
    # does not drain the connections ServeHTTP serves (parse_http_serve.py)
    via_http: bool = False
    # whether the function that serves it calls `Shutdown` or `Close` on that HTTP server
    # (None: the server is handed on, or held where k8slb does not follow it)
    http_stopped: bool | None = None
    # the handler is another package's function given the gRPC server: (package, function,
    # place, what it makes); a wait only where that parameter is an http.Handler, or the
    # handler ("handler") or http.Server ("server") it returns serves it (code/imported.py)
    pending: tuple[str, str, int, str] | None = None


@record
class SignalExit:
    """The process exits on SIGTERM without waiting for its shutdown: from where the signal
    is received, the code reaches an exit (`os.Exit`, a `Fatal` log, the end of `main`)
    with nothing in between that blocks (a graceful stop it waits for, a wait on a done
    channel or a WaitGroup, a call k8slb cannot follow): the servers it runs are cut
    however they drain. `started`: a graceful stop the handler starts in a goroutine and
    does not wait for (`go server.GracefulStop()`), when it does."""

    loc: Loc  # the exit
    handler: Loc  # where the signal is received
    how: str  # "os.Exit", "main returns"
    started: Loc | None = None
    # a `Shutdown(ctx)` on the way whose context is already done (the signal's, or one
    # derived from it): it returns at once, draining nothing
    expired: Loc | None = None


@record
class SignalPause:
    """On SIGTERM the code waits before it stops serving: a sleep (Go's `time.Sleep` and
    `<-time.After`, Python's `time.sleep` and awaited `asyncio.sleep`, Node's awaited
    timers and timers that close the server, Java's `Thread.sleep` in a shutdown hook) on
    the path from where the signal is received (or in the handler registered for it) that
    comes before any call that stops a server or the process. The routing drops the pod
    meanwhile, as a preStop pause lets it; a health service set NOT_SERVING first
    (`health_drains`) also fails readiness."""

    loc: Loc  # the sleep
    handler: Loc  # where the signal is received, or its handler registered
    seconds: Any  # how long, in seconds (a number), else UNKNOWN
    # False: the wait follows a health service set NOT_SERVING (`handler` is there), on a
    # path from SIGTERM k8slb does not see whole (a drain method called from elsewhere)
    signalled: bool = True


@record
class Stop:
    loc: Loc
    server: str
    grace: Any
    in_keyboard_interrupt: bool
    # how the stop is written, when it is not the language's usual abrupt stop (a Java
    # `shutdown()` that a JVM shutdown hook does not wait for)
    written: str | None = None
    # Python's: a stop that runs only once the server's `wait_for_termination()` returned,
    # when the server has ended: "" when it follows the wait in its block, else the name of
    # its function, which the module calls only so (another module may call it too)
    after_wait: str | None = None
    # Python's: a grace read from the default of a parameter of the stop's function
    # (`def stop(self, grace=0): self.server.stop(grace)`): that function's name, the
    # parameter's, and whether the module itself calls it with no argument (none of its
    # calls passes one); it holds only where the callers elsewhere pass none either
    # (KLB404 asks them)
    defaulted: tuple[str, str, bool] | None = None


@record
class Listen:
    """`server.add_insecure_port(address)` (or `add_secure_port`): where a server listens."""

    server: str
    address: Any  # "[::]:50051", an EnvRef, UNKNOWN
    loc: Loc
    # where a Unix network read from a field came from (FieldNetwork), said in findings
    network_from: str = ""
    # Go: where the server it listens for is made, where the file makes several servers
    # under its name (each function's `grpcServer := grpc.NewServer()`): the one whose
    # local the `Serve(lis)` is in the scope of (None: any server of the name)
    made: Loc | None = None


@record
class Route:
    """An HTTP route the module declares (web_routes.py): `path` reaches `handler`."""

    path: str
    handler: str  # as the code names it: `health`, `views.health`
    loc: Loc
    trivial: bool  # the handler answers a constant and checks nothing
    # the handler's definition was read (one in another file or package is not followed:
    # what it checks is unknown, never taken for more than a constant)
    read: bool = True


@record
class HttpClient:
    loc: Loc
    factory: str
    long_lived: bool
    http2: bool
    base_url: Any
    reuse_disabled: bool  # connections are never reused (keepalive_expiry=0, force_close)
    # Node.js's global agent (axios, fetch, http.request with no agent of their own): it
    # keeps connections alive from Node 19, so whether it pools is the runtime's to say
    default_agent: bool = False


@record
class DbPool:
    loc: Loc
    factory: str
    long_lived: bool
    url: Any
    lifetime: Any  # the lifetime argument, or None when it is not given
    lifetime_arg: str
    # handed to the callers of the function that makes it, where no call in its own file
    # sets its lifetime: a module that can call that function may (code/imported.py)
    returned: bool = False
    # the database runs in the process (a SQLite driver's): no server for it to pin
    in_process: bool = False


@record
class HealthServicer:
    loc: Loc
    custom_class: str | None  # None: grpc_health's own HealthServicer
    class_can_fail: bool = True  # a custom servicer that can answer NOT_SERVING
    imported: Imported | None = None  # a class from another module, until resolved


# URL schemes of gRPC resolvers that look a name up in a service registry
# (`consul://consul:8500/geo`): a channel with one dials the pods the registry lists.
REGISTRY_SCHEMES = {
    "consul": "Consul",
    "etcd": "etcd",
    "zk": "ZooKeeper",
    "zookeeper": "ZooKeeper",
    "nacos": "Nacos",
    "eureka": "Eureka",
}


def url_origin(url: str) -> str:
    """`http://stock:7000` of `http://stock:7000/items/1`: the scheme, host and port."""
    scheme, separator, rest = url.partition("://")
    return scheme.lower() + separator + rest.partition("/")[0]


def carried_url(first: object, url: object, written: Collection[str]) -> bool:
    """Whether a text's or a request's URL (`url`) is one the module writes elsewhere,
    whole: the value the text begins with (`first`: `STOCK` of `${STOCK}/items` or of
    `STOCK + "/items"`) is a URL of `written` (the module's URLs written as texts), and
    the text adds nothing to it before its path. That URL is read where it is written,
    the line to change, and not again at each use of it (CodeFacts.urls)."""
    return (
        isinstance(url, str)
        and isinstance(first, str)
        and first in written
        and url_origin(first) == url_origin(url)
    )


def registry_scheme(text: str) -> tuple[str, str] | None:
    """(scheme, registry) when the text starts with a registry resolver's scheme."""
    scheme, separator, _ = text.partition("://")
    registry = REGISTRY_SCHEMES.get(scheme.lower()) if separator else None
    return (scheme.lower(), registry) if registry is not None else None


@record
class Registration:
    """The process registers itself in a service registry (a Consul, etcd, ZooKeeper,
    Eureka or Nacos client's register call): its callers can find its pods there, by
    address, rather than through a Service."""

    loc: Loc
    registry: str  # "Consul"
    call: str  # how the code makes it: "ServiceRegister"
    within: str  # the function or method that makes it ("" at the top level)


@record
class RegistryDial:
    """The module dials through a registry resolver: a target with a registry's scheme
    (`consul://...`), or a resolver package of a registry imported."""

    loc: Loc
    registry: str
    how: str  # "consul://... target", "imports github.com/mbobakov/grpc-consul-resolver"


# Spring Cloud's load-balanced HTTP clients: a bean of one of these types annotated
# `@LoadBalanced` sends each request to an instance its load balancer picks by the URL's
# host, a service ID that discovery (Kubernetes', Eureka's, Consul's) maps to instances,
# each with its own port: no DNS name, no Service port.
BALANCED_CLIENTS = frozenset({"RestTemplate", "RestClient.Builder", "WebClient.Builder"})
# The keys a module's exports list its beans of those types under: those annotated
# `@LoadBalanced`, and the others (`@Bean` methods that return one).
BALANCED_BEANS = "@LoadBalanced beans"
PLAIN_BEANS = "@Bean clients"


@record
class BalancedUrl:
    """A URL the code hands to an HTTP client of a type in BALANCED_CLIENTS that the
    application is given as a bean (a field or parameter Spring injects), or to the
    `@LoadBalanced` bean's own making: a load balancer resolves its host when the bean it
    gets is a load-balanced one, which imported.py decides from every module of the
    project."""

    loc: Loc  # the URL's, as `CodeFacts.urls` holds it
    client: str  # the client's type, as BALANCED_CLIENTS names it
    # the injection point is itself annotated `@LoadBalanced` (a qualifier: it gets the
    # load-balanced bean), or the URL is given within the load-balanced bean's method
    qualified: bool


@dataclass
class CodeFacts:
    """What a module's code does. (From the cache, the fields beyond what every run reads
    of every module are loaded when one is first read: parse_codec.py.)"""

    path: str
    language: str  # the name of its language in languages/
    is_test: bool = False
    # JavaScript a compiler wrote (tsc's or Babel's CommonJS banner, a source map comment):
    # build output, not the service's code where its source is scanned too (projects.py)
    compiled: bool = False
    project: str = ""  # the folder of the program the module belongs to (projects.py)
    # a JavaScript or TypeScript module's specifiers (`./config`, `@grpc/grpc-js`): what
    # its imports, `export ... from`, `require()` and `import()` load, at most
    # MAX_REQUIRES (javascript/parse.py), then "*" when it names more (not all known)
    requires: tuple[str, ...] = ()
    # a test's: the images it starts as containers of its own (Testcontainers), with the
    # line of each (code/test_containers.py): an image only tests start is a stand-in's
    started_images: tuple[tuple[str, int], ...] = ()
    imports: tuple[tuple[int, str], ...] = ()  # (level, dotted name) of every import line
    # a Go file's package clause (`main`: a program's, which an image runs; a library's or
    # generated stubs' name otherwise); `main` for a Java or Kotlin file that declares the
    # program's entry point (a `main` method, a Spring Boot application), "" for the rest
    package: str = ""
    channels: list[Channel] = field(default_factory=list)
    servers: list[Server] = field(default_factory=list)
    starts: set[str] = field(default_factory=set)  # servers that are started
    # gRPC servers handed to an HTTP server as its handler (Go's ServeHTTP): their
    # connections are the HTTP server's, and their keepalive options do nothing
    http_served: set[str] = field(default_factory=set)
    listens: list[Listen] = field(default_factory=list)
    # where a plain HTTP server of the process listens (Go's `http.ListenAndServe(addr,
    # h)`, an `http.Server{Addr: ...}`): its `server` is "http"; none where the module
    # also serves HTTP/2 in the clear (h2c), which gRPC may ride
    http_listens: list[Listen] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)
    sigterm_handlers: list[Loc] = field(default_factory=list)
    # Go: `signal.Notify(ch, os.Interrupt)` calls that catch SIGINT alone (Ctrl-C), which
    # Kubernetes never sends: not SIGTERM handlers, said where none is found
    sigint_handlers: list[Loc] = field(default_factory=list)
    # calls that name SIGTERM (the indices of those arguments) of another module's function,
    # which is a handler where that function's parameter reaches a listener's event (a
    # Node `signal helper` export): imported.py moves each to sigterm_handlers so
    signal_helper_calls: list[tuple[Imported, tuple[int, ...], Loc]] = field(default_factory=list)
    # SIGTERM handlers that close a server the module listens with (`server.close()` after
    # `server.listen()`, a Node module's): the server drains what is in flight
    sigterm_drains: list[Loc] = field(default_factory=list)
    # where the process exits on SIGTERM with nothing waited for (a handler that drains
    # nothing): started and not waited for, as opposed to a graceful stop it waits for
    signal_exits: list[SignalExit] = field(default_factory=list)
    # servers run by a call that installs its own SIGTERM handler (Python's uvicorn.run,
    # aiohttp's web.run_app; Node's ApolloServer, made): the process stops on SIGTERM,
    # though it drains no gRPC server
    signal_servers: list[Loc] = field(default_factory=list)
    # Python's: the calls each top-level function makes ("" the module's own code, run
    # when it is imported; "__main__" its `if __name__ == "__main__":` block), each as
    # `name` (a function of the module) or `module:name` (an imported one; the module
    # with the leading dots of a relative import): the code an entry point reaches
    # (code/reach.py); and the top-level functions so keyed that register a SIGTERM
    # handler or run a signal server
    function_calls: dict[str, tuple[str, ...]] = field(default_factory=dict)
    signal_functions: frozenset[str] = frozenset()
    calls_read: bool = False  # whether they were read (the module had a syntax tree)
    # Python's: the first and last lines of its `if __name__ == "__main__":` blocks, which
    # run only in the module run as the program, not in one a program imports
    main_blocks: tuple[tuple[int, int], ...] = ()
    # sleeps on SIGTERM's path before the server stops: the server drains itself
    signal_pauses: list[SignalPause] = field(default_factory=list)
    http_clients: list[HttpClient] = field(default_factory=list)
    # Python: the calls of other modules' functions that keep what they return, each a
    # channel where that function makes one (Channel.made_by): imported.py moves those
    # to `channels`, and drops the rest
    made_channels: list[Channel] = field(default_factory=list)
    # the first request a Node module sends through the global agent (HttpClient's
    # default_agent): KLB202's alone, no client the module holds (links.dependencies)
    agent_requests: list[HttpClient] = field(default_factory=list)
    db_pools: list[DbPool] = field(default_factory=list)
    health_servicers: list[HealthServicer] = field(default_factory=list)
    health_drains: list[Loc] = field(default_factory=list)  # NOT_SERVING / graceful shutdown
    urls: list[tuple[Any, Loc]] = field(default_factory=list)  # http(s) URLs in the module
    routes: list[Route] = field(default_factory=list)  # HTTP routes it serves
    markers: list[Marker] = field(default_factory=list)  # `# k8slb: ignore` comments
    problem: Problem | None = None
    # What other modules may import from this one: module-level names bound once, and the
    # health servicer classes (whether each can answer NOT_SERVING).
    exports: dict[str, Any] = field(default_factory=dict)
    health_classes: dict[str, bool] = field(default_factory=dict)
    deferred: bool = False  # some value holds an `Imported` or a `Setting`: imported.py
    # the module changes the servers a framework builds from settings (Spring's
    # GrpcServerConfigurer): their options are not all in the settings
    configures_servers: bool = False
    # the service classes a starter serves with the gRPC server it builds from the project's
    # settings (grpc-spring-boot-starter's @GrpcService, LogNet's @GRpcService): the
    # starter (a key of java/parse_spring.STARTERS) and where the class says so
    starter_services: list[tuple[str, Loc]] = field(default_factory=list)
    registrations: list[Registration] = field(default_factory=list)
    registry_dials: list[RegistryDial] = field(default_factory=list)
    # URLs handed to a client a load balancer may resolve (imported.py drops from `urls`
    # those it does: their hosts are service IDs, their ports the instances')
    balanced_urls: list[BalancedUrl] = field(default_factory=list)
    # the names of the functions and methods the module calls (`Register` for
    # `s.registry.Register(...)`): a registration made inside a function counts for a
    # program only when the program calls that function
    called: set[str] = field(default_factory=set)
    # Python's: those of them some call passes an argument to (a server's own `stop(...)`
    # left out): a parameter's default holds only where no caller passes it (Stop.defaulted)
    argued: set[str] = field(default_factory=set)
    # Go's, of every file: each name the file calls or hands on as a value, with the
    # top-level functions it is written in (languages/go/parse_callers.py: "*" outside any, "-"
    # a test's); its top-level functions' (name, first line, last line), a test's left
    # out, those that hold none of SERVING_FACTS too; and whether the file was read whole
    # for them (False: it may mention anything)
    mentions: dict[str, frozenset[str]] = field(default_factory=dict)
    spans: tuple[tuple[str, int, int], ...] = ()
    callers_read: bool = False

    def load(self) -> None:
        """Have every field at hand (one from the cache loads them when first read)."""

    def long_lived_channels(self) -> list[Channel]:
        """Channels made once and kept: the ones that can pin a client to a pod."""
        return [channel for channel in self.channels if channel.long_lived]

    def dials_per_call(self) -> bool:
        """Whether a channel of the module is made per call: who dials a Service so is
        asked of every module (dialers.per_call_only; one from the cache keeps the answer
        beside what every run reads, so that its code need not be loaded for it)."""
        return any(not channel.long_lived for channel in self.channels)

    def link_inputs(self) -> tuple[object, ...]:
        """What links read of the module (model/links.py, code/projects.py): its path,
        language, project, imports, whether it is a test, its package clause (a Go folder
        of no `main` package is no program), and the digest of what they read of its code."""
        return (
            self.path,
            self.language,
            self.project,
            self.imports,
            self.is_test,
            self.package,
            self.link_digest(),
        )

    def link_digest(self) -> str:
        """A digest of what the links read of the module's code beyond its header: whether
        it serves, where it listens, what it calls (the gRPC services it registers). A link
        kept from an earlier run rests on it (model/links.inputs_digest), so one from the
        cache keeps it beside what every run reads."""
        said = repr(
            (
                bool(self.servers),
                self.requires,
                bool(self.routes),
                bool(self.http_served),
                [listen.address for listen in self.listens],
                sorted(self.called),
            )
        )
        return hashlib.blake2b(said.encode(), digest_size=12).hexdigest()

    def dialed_targets(self) -> tuple[Any, ...]:
        """The targets of the module's long-lived channels: who dials a Service
        (dialers.py) is asked of every module (one from the cache keeps them beside what
        every run reads, so that its code need not be loaded for it)."""
        return tuple(channel.target for channel in self.long_lived_channels())
