"""Names that cross modules: a value imported from another module of the scanned code
(`from .config import ADDR`, `config.ADDR`, a health servicer class from `.health`) is
resolved to its definition there, once every module is parsed; so is a setting a framework
injects (Spring's `@Value`), from the settings files of the module's project. Each module is parsed
once; the join reads the facts each parse exported. Chains of re-exports are followed a
bounded number of steps (code/budget.py), and cycles end as UNKNOWN; each export is resolved
once for all the modules that import it.

The parse cache keeps the facts as parsed; resolution makes new facts for each run, so a
change to the imported module is seen even when the importing one is unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from k8slb.code.budget import MAX_CHOICES, MAX_DEPTH
from k8slb.code.facts import (
    ASSIGNED_FIELDS,
    BALANCED_BEANS,
    DEFAULT_SCHEME,
    FIELD_SOURCES,
    FIELD_SOURCES_CUT,
    GRPC_TRANSPORT,
    HANDED_SERVERS,
    HANDLER_PARAMETERS,
    OPTION_HELPER,
    PLAIN_BEANS,
    SERVED_PARAMETERS,
    UNKNOWN,
    VIPER_ENVIRONMENT,
    Alternatives,
    BoundProperty,
    Channel,
    ChannelHelper,
    CodeFacts,
    Constructed,
    DbPool,
    EnvRef,
    FieldNetwork,
    Helper,
    Imported,
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
    Server,
    Setting,
    StructField,
    Unknown,
    ViperKey,
    Wait,
    choices,
    joined,
    one_of,
    or_empty,
    settled,
)
from k8slb.code.field_networks import unix_network
from k8slb.code.imported_programs import MAX_PROGRAMS, MAX_SPLITS, program_channels
from k8slb.code.projects import GoPackages, module_files, node_module_files, package_roots
from k8slb.code.settings_files import SettingsFiles
from k8slb.code.ts_paths import PathAliases
from k8slb.languages import LANGUAGES

_PENDING = object()  # not resolved yet
_DJANGO_SETTINGS = "django.conf.settings"  # `from django.conf import settings`: a proxy
MAX_SCRIPT_DEPTH = 64  # the folders above a module searched for a script's (script_roots)


class _Resolver:
    def __init__(self, modules: Sequence[CodeFacts]) -> None:
        self.by_path = {os.path.normpath(m.path): m for m in modules}
        # every project's modules by language: where a `Setting` is looked up
        self.settings: dict[tuple[str, str], list[CodeFacts]] = {}
        for module in modules:
            self.settings.setdefault((module.language, module.project), []).append(module)
        # (module, name) -> an export resolved, and the steps it was resolved at
        self.exported: dict[tuple[str, str], tuple[int, Any]] = {}
        # an exported name (`BackendProperties.host`, a bound property) -> its modules
        self.declaring: dict[str, list[CodeFacts]] | None = None
        self.django: dict[tuple[str, str], CodeFacts | None] = {}  # django_settings, by project
        # top-level Python packages by name -> the folders that hold one (distribution_roots)
        self._top_packages: dict[str, set[str]] | None = None
        self._scripts: set[str] | None = None  # the folders of Python scripts (script_roots)
        self._script_roots: dict[str, list[str]] = {}  # script_roots' answer, by package
        self._go: GoPackages | None = None
        self._schemes: dict[str, str | None] = {}  # a Go package's folder -> go_scheme
        self._go_files: dict[str, list[CodeFacts]] | None = None  # by folder
        # what each Go parameter (Passed) and option helper (folder, key) resolved to
        self.resolved: dict[Any, Any] = {}
        # (folder, function) -> the Go modules that call it, with what each call passes
        self._go_calls: dict[tuple[str, str], list[tuple[CodeFacts, tuple[Any, ...]]]] | None = None
        self._go_closes: dict[tuple[str, str], list[tuple[CodeFacts, bool]]] | None = None
        # (folder, function) -> the places of its http.Handler parameters, by declaring file
        self._go_handles: dict[tuple[str, str], list[tuple[CodeFacts, tuple[int, ...]]]] | None
        self._go_handles = None
        self._go_serves: dict[tuple[str, str], list[tuple[CodeFacts, Any]]] = {}
        # while a channel is resolved for some of the Go programs that make it: the paths
        # of their files, the only callers whose calls count (program_channels)
        self.within: frozenset[str] | None = None
        self.splits = 0  # the channels resolved program by program (MAX_SPLITS)
        # Node programs' entry modules by their folder's name (workspace_package)
        self.packages: dict[str, list[CodeFacts]] | None = None
        # (language, project) -> its client beans: load-balanced, plain (_client_beans)
        self._beans: dict[tuple[str, str], tuple[set[str], set[str]]] = {}
        # the module paths tsconfig.json files map Node import names to (ts_paths.py)
        self.aliases = PathAliases(self.by_path)
        self.settings_files = SettingsFiles()  # the viper settings files read (ViperKey)

    # -- Go: a package is a folder of files -------------------------------------------------

    def go_packages(self) -> GoPackages:
        if self._go is None:
            self._go = GoPackages(self.by_path)
        return self._go

    def go_folder(self, importer: CodeFacts, package: str) -> str | None:
        """The scanned folder of a Go package as `importer` names it: "" for its own, else
        an import path (projects.GoPackages matches it to a folder)."""
        if not package:
            return os.path.dirname(os.path.normpath(importer.path))
        return self.go_packages().folder(package, os.path.dirname(os.path.normpath(importer.path)))

    def _go_exports(self, kind: str) -> dict[tuple[str, str], list[tuple[CodeFacts, Any]]]:
        """Each scanned Go module's exports of a kind (`KIND PACKAGE FUNCTION`), each value
        with its module, by the folder of the package named and the function's name."""
        found: dict[tuple[str, str], list[tuple[CodeFacts, Any]]] = {}
        for module in self.by_path.values():
            if module.language != "go" or module.is_test:
                continue
            for key, values in module.exports.items():
                exported, _, rest = key.partition(" ")
                if exported != kind:
                    continue
                package, _, name = rest.partition(" ")
                home = self.go_folder(module, package)
                if home is not None:
                    found.setdefault((home, name), []).extend((module, v) for v in values)
        return found

    def go_calls(self, folder: str, function: str) -> list[tuple[CodeFacts, tuple[Any, ...]]]:
        """The calls of a Go package's function in every scanned Go module, with the
        values each passes (the `call` exports), indexed once a run."""
        if self._go_calls is None:
            self._go_calls = self._go_exports("call")
        found = self._go_calls.get((folder, function), [])
        if self.within is not None:  # one group of programs' calls only
            found = [(m, c) for m, c in found if os.path.normpath(m.path) in self.within]
        return found

    def go_closes(self, folder: str, function: str) -> list[tuple[CodeFacts, bool]]:
        """Whether each scanned call of a Go package's function closes what it returns
        before its own function returns (the `closes` exports), with the calling module."""
        if self._go_closes is None:
            self._go_closes = self._go_exports("closes")
        return self._go_closes.get((folder, function), [])

    def http_served(self, module: CodeFacts) -> set[str]:
        """The module's gRPC servers served as HTTP handlers: those it serves so itself,
        and those it passes to a function of the tree where that function takes an
        http.Handler (HANDED_SERVERS, HANDLER_PARAMETERS)."""
        handed = module.exports.get(HANDED_SERVERS)
        if not handed:
            return module.http_served
        served = set(module.http_served)
        for package, function, at, server in handed:
            if self._handler_parameter(module, package, function, at, None):
                served.add(server)
        return served

    def _handler_parameter(
        self, module: CodeFacts, package: str, function: str, at: int, made: str | None
    ) -> bool:
        """Whether a Go package's function, as `module` names it, serves what it is given
        at that place: takes an http.Handler there (made "handler"), or returns what
        `made` names, a handler or an http.Server, that serves it (None: either); its
        declaring files' HANDLER_PARAMETERS and SERVED_PARAMETERS exports."""
        if self._go_handles is None:
            self._go_handles = self._go_exports(HANDLER_PARAMETERS)
            self._go_serves = self._go_exports(SERVED_PARAMETERS)
        folder = self.go_folder(module, package)
        if not folder:
            return False
        declared = self._go_handles.get((folder, function), []) if made != "server" else []
        serves = self._go_serves.get((folder, function), [])
        return any(at in places for _, places in declared) or any(
            at in places and made in (None, kind) for _, (kind, places) in serves
        )

    def http_waits(self, module: CodeFacts) -> list[Wait]:
        """The module's waits, a wait through net/http on a gRPC server handed to another
        package's function (`pending`) kept where that function's parameter is an
        http.Handler, which serves it, and so no longer pending."""
        return [
            replace(wait, pending=None) if wait.pending is not None else wait
            for wait in module.waits
            if wait.pending is None or self._handler_parameter(module, *wait.pending)
        ]

    def go_scheme(self, importer: CodeFacts) -> str | None:
        """The scheme a Go target with none gets in every program that links the module
        in, where each sets it (`resolver.SetDefaultScheme("dns")`, often in an imported
        package's `init()`): the module's own package and those it imports, else every
        program (a package no scanned file imports) whose packages include the module's.
        None where one of them does not, or they differ."""
        folder = os.path.dirname(os.path.normpath(importer.path))
        if folder not in self._schemes:
            go = self.go_packages()
            own = self.scheme_of(go.closure(folder))
            if own is None:
                path = os.path.normpath(importer.path)
                found = {self.scheme_of(files) for files in go.programs() if path in files}
                own = found.pop() if len(found) == 1 else None
            self._schemes[folder] = own
        return self._schemes[folder]

    def scheme_of(self, files: list[str]) -> str | None:
        schemes = {
            scheme
            for path in files
            if (module := self.by_path.get(path)) is not None
            and isinstance(scheme := module.exports.get(DEFAULT_SCHEME), str)
        }
        return schemes.pop() if len(schemes) == 1 else None

    def passed(self, value: Passed, steps: int) -> Any:
        """What the calls of a Go function in other files pass for a parameter: each in its
        caller's module, joined as one file's calls are (facts.one_of). Each parameter is
        resolved once a run (one that its own callers' values lead back to is unknown)."""
        known = self.resolved.get(value, _PENDING)
        if known is not _PENDING:
            return known
        self.resolved[value] = UNKNOWN
        found = one_of(
            [
                or_empty(
                    self._passed_value(caller, call[value.index], value.member, steps)
                    if value.index < len(call)
                    else UNKNOWN,
                    value.empty,
                )
                for caller, call in self.go_calls(value.package, value.function)
            ]
        )
        self.resolved[value] = found
        return found

    def _passed_value(self, caller: CodeFacts, given: Any, member: str, steps: int) -> Any:
        """What one call passes for a parameter, or for the field `member` of it: a struct
        passed on whole is followed to that field (`_field_of`)."""
        if _followed(given, member):
            return self.value(caller, _field_of(given, member), steps + 1)
        return _member(self.value(caller, given, steps + 1), member)

    def struct_field(self, value: StructField, steps: int) -> Any:
        """What the struct literals of a Go type in its package's files set for a field
        (each file's `literal <type>` exports), joined as a parameter's callers are: a
        literal that leaves it out gives it no address (UNKNOWN among the others). Unknown
        where no scanned file makes one, or past MAX_CHOICES literals; once a run."""
        known = self.resolved.get(value, _PENDING)
        if known is not _PENDING:
            return known
        self.resolved[value] = UNKNOWN
        key = f"literal {value.type_name}"
        files = self.go_files(value.package)
        if any(
            (written := m.exports.get(ASSIGNED_FIELDS, ())) is None or value.field in written
            for m in files
            if ASSIGNED_FIELDS in m.exports
        ):
            return UNKNOWN  # a file of the package sets it otherwise too
        made = [(module, fields) for module in files for fields in module.exports.get(key, ())]
        found = (
            UNKNOWN
            if len(made) > MAX_CHOICES
            else one_of(
                [
                    self._passed_value(
                        module, fields.get(value.field, UNKNOWN), value.member, steps
                    )
                    for module, fields in made
                ]
            )
        )
        self.resolved[value] = found
        return found

    def field_network(
        self, importer: CodeFacts, value: FieldNetwork, steps: int
    ) -> tuple[Any, str]:
        """A listener's address whose network a field holds (FieldNetwork), a Unix
        socket's (`unix:PATH`) where the project's writes of the field say so, with what
        the finding says of it ("" where they do not)."""
        address = self.value(importer, value.address, steps + 1)
        key = ("field sources", os.path.normpath(importer.path))
        sources = self.resolved.get(key, _PENDING)
        if sources is _PENDING:
            sources = self.resolved[key] = self._field_sources(importer)
        via = unix_network(sources, value.field) if sources is not None else None
        if via is None:
            return address, ""
        return (f"unix:{address}" if isinstance(address, str) else "unix:"), via

    def _field_sources(self, importer: CodeFacts) -> dict[str, list[tuple[str, ...]]] | None:
        """Each field's writes (FIELD_SOURCES) in the files of the programs that link the
        importer in (another program's field of the same name is not its struct's), else
        of its project; tests' left out. None where a file had more fields than it tells,
        or past MAX_PROGRAMS programs."""
        path = os.path.normpath(importer.path)
        programs = [files for files in self.go_packages().programs() if path in files]
        if len(programs) > MAX_PROGRAMS:
            return None
        modules = (
            [self.by_path[p] for p in dict.fromkeys(p for f in programs for p in f)]
            if programs
            else self.settings.get(("go", importer.project), [])
        )
        merged: dict[str, list[tuple[str, ...]]] = {}
        for module in modules:
            if module.is_test:
                continue
            if module.exports.get(FIELD_SOURCES_CUT):
                return None
            for field, found in module.exports.get(FIELD_SOURCES, {}).items():
                merged.setdefault(field, []).extend(found)
        return merged

    def constructed(self, importer: CodeFacts, value: Constructed, steps: int) -> Any:
        """What the `new Type(...)` calls of the importer's project pass for a Java
        constructor's parameter (each module's `new Type` export: the values of each
        call's arguments), joined as a Go function's callers are; once a run."""
        key = (importer.project, value)
        known = self.resolved.get(key, _PENDING)
        if known is not _PENDING:
            return known
        self.resolved[key] = UNKNOWN
        found = one_of(
            [
                self.value(module, call[value.index], steps + 1)
                for module in self.settings.get((importer.language, importer.project), ())
                if not module.is_test  # a test's own values are not the service's
                for call in module.exports.get(f"new {value.type_name}", ())
                if len(call) == value.count  # the constructor's, not another's
            ]
        )
        self.resolved[key] = found
        return found

    def helper(self, importer: CodeFacts, helper: Helper, steps: int) -> Options:
        """The options a Go function of another file returns (its `options` export), its
        own helpers' added; incomplete when no scanned file of the package declares it.
        Java's: what a static method of another class does to a builder it is handed
        (`Class.method/index/count`), exported by the one file that declares it."""
        key = f"options {helper.function}"
        if importer.language == "java":
            return self.java_helper(importer, key, steps)
        folder = self.go_folder(importer, helper.package)
        if folder is None or steps > MAX_DEPTH:
            return Options(complete=False)
        known = self.resolved.get((folder, key), _PENDING)
        if isinstance(known, Options):
            return known
        # once a run; a helper whose options lead back to itself is incomplete
        self.resolved[(folder, key)] = Options(complete=False)
        source = next((m for m in self.go_files(folder) if key in m.exports), None)
        found = (
            Options(complete=False)
            if source is None
            else self.options(source, source.exports[key], steps + 1)
        )
        self.resolved[(folder, key)] = found
        return found

    def java_helper(self, importer: CodeFacts, key: str, steps: int) -> Options:
        source = self._declaring(importer, key) if steps <= MAX_DEPTH else None
        if source is None:
            return Options(complete=False)
        known = self.resolved.get((source.path, key), _PENDING)
        if isinstance(known, Options):
            return known
        self.resolved[(source.path, key)] = Options(complete=False)  # no cycle
        found = self.options(source, source.exports[key], steps + 1)
        self.resolved[(source.path, key)] = found
        return found

    def go_files(self, folder: str) -> list[CodeFacts]:
        """The scanned Go modules (tests left out) of a package's folder."""
        if self._go_files is None:
            self._go_files = {}
            for module in self.by_path.values():
                if module.language == "go" and not module.is_test:
                    home = os.path.dirname(os.path.normpath(module.path))
                    self._go_files.setdefault(home, []).append(module)
        return self._go_files.get(folder, [])

    def package_value(self, importer: CodeFacts, wanted: PackageValue, steps: int) -> Any:
        """A Go package's constant or variable, as the one scanned file of the package
        that declares it exports it (resolved there: it may name a third package's)."""
        folder = self.go_folder(importer, wanted.package)
        key = f"value {wanted.name}"
        sources = [m for m in self.go_files(folder) if key in m.exports] if folder else []
        return self.export(sources[0], key, steps + 1) if len(sources) == 1 else UNKNOWN

    def package_env(self, importer: CodeFacts, wanted: PackageEnv) -> Any:
        """An env helper's read (`helpers.GetEnv("ADDR", "x")`): the variable with its
        default where a scanned file of the package declares the function one (its `env
        <function>` export), else unknown."""
        folder = self.go_folder(importer, wanted.package)
        key = f"env {wanted.function}"
        if folder is None or not any(key in m.exports for m in self.go_files(folder)):
            return UNKNOWN
        return EnvRef(wanted.name, wanted.default)

    def listener_of(self, importer: CodeFacts, wanted: ListenerOf, steps: int) -> Any:
        """Where the listener a Go function of another file returns listens: `unix:` where
        every scanned file of its package that declares it (one a build of it: `_linux.go`,
        `_windows.go`) exports a Unix socket's (`listener <function>`, resolved there: it
        may call a third file's), else UNKNOWN."""
        folder = self.go_folder(importer, wanted.package)
        key = f"listener {wanted.function}"
        sources = [m for m in self.go_files(folder) if key in m.exports] if folder else []
        found = [self.export(source, key, steps + 1) for source in sources]
        return "unix:" if found and all(value == "unix:" for value in found) else UNKNOWN

    def package_field(self, importer: CodeFacts, wanted: PackageField, steps: int = 0) -> Any:
        """A field of a struct a Go package returns, as the one scanned file of the package
        that declares it exports it: the struct its function fills (`field <function>
        <path>`), else its settings' key (`field <path>`); nothing left to resolve. The
        whole struct (no path) is unknown: only its fields are followed."""
        folder = self.go_folder(importer, wanted.package)
        if folder is None or not wanted.path:
            return UNKNOWN
        for key in (f"field {wanted.function} {wanted.path}", f"field {wanted.path}"):
            if key.startswith("field  "):
                continue  # no function known
            sources = [m for m in self.go_files(folder) if key in m.exports]
            if sources:  # resolved where it is declared (`Addr: env.Get("ADDR", "")`)
                return self.export(sources[0], key, steps + 1) if len(sources) == 1 else UNKNOWN
        first, dot, rest = wanted.path[1:].partition(".")
        if wanted.function and wanted.path.startswith(".") and dot:
            # `.Upstreams.Addr`: the field `Addr` of the struct the function fills `Upstreams`
            # with (`Upstreams: upstreamsFromEnv()`, exported whole)
            held = self.package_field(importer, replace(wanted, path=f".{first}"), steps + 1)
            return _member(held, rest)
        return UNKNOWN

    def viper_key(self, importer: CodeFacts, wanted: ViperKey) -> Any:
        """A key read from viper's registry: the variable each program that links the
        reader in reads it from, as the viper calls of the program's files say (each
        program's read once a run); UNKNOWN where the programs differ, or none is known."""
        path = os.path.normpath(importer.path)
        found = []
        for index, files in enumerate(self.go_packages().programs()):
            if path not in files:
                continue
            said = self._viper_said(index, files)
            variable = _viper_variable(said, wanted.key)
            if isinstance(variable, EnvRef) and isinstance(variable.default, Unknown):
                variable = self._file_default(path, said or [], wanted.key, variable)
            found.append(variable)
        variables = set(found)
        return variables.pop() if len(variables) == 1 else UNKNOWN

    def _file_default(
        self, path: str, said: list[dict[str, Any]], key: str, variable: EnvRef
    ) -> EnvRef:
        """The variable with the value the settings file the program reads gives the key
        as its default (code/settings_files.py), where its files name that file, and only
        files (no reader, no remote store); else as it was."""
        named = [s.get("files") for s in said if s.get("read")]
        if not named or any(n is None for n in named) or any(s.get("reader") for s in said):
            return variable
        files = [f for n in named for f in n or ()]
        given = self.settings_files.value(path, files, key) if files else None
        if given is None:
            if files and self.settings_files.absent(path, files):
                # no such file to read: viper gives the key what `SetDefault` gives it
                return replace(variable, default=_viper_default(said, key))
            return variable
        place = given.path if given.line is None else f"{given.path}:{given.line}"
        return replace(variable, default=given.value, default_from=f"{key} in {place}")

    def _viper_said(self, index: int, files: list[str]) -> list[dict[str, Any]] | None:
        """What the viper calls of a program's files (tests left out) say of the
        environment: None past MAX_CHOICES files that say something."""
        key = ("viper", index)
        if key not in self.resolved:
            said: list[dict[str, Any]] | None = []
            for path in files:
                module = self.by_path.get(path)
                if module is None or module.is_test or VIPER_ENVIRONMENT not in module.exports:
                    continue
                if said is None or len(said) >= MAX_CHOICES:
                    said = None
                    break
                said.append(module.exports[VIPER_ENVIRONMENT])
            self.resolved[key] = said
        found: list[dict[str, Any]] | None = self.resolved[key]
        return found

    def module(self, importer: CodeFacts, origin: Imported) -> CodeFacts | None:
        """The scanned module `origin` names, seen from `importer`: a relative import from
        its package, an absolute one from its own folder (a script's first sys.path entry)
        or its project, a path (Node's) from its folder."""
        package = os.path.dirname(os.path.normpath(importer.path))
        if origin.module == _DJANGO_SETTINGS and not origin.level and not origin.by_path:
            return self.django_settings(importer)
        if origin.by_path and not origin.module.startswith("."):
            aliased = self.aliases.module(importer.path, origin.module)
            if aliased is not None and aliased in self.by_path:
                target = self.by_path[aliased]
                return target if target is not importer else None
            return self.workspace_package(importer, origin.module)
        if origin.by_path:
            paths = node_module_files(origin.module, package)
        else:
            roots = [package, os.path.normpath(importer.project or package)]
            if not origin.level:  # a package the program was started as a module of
                head = origin.module.split(".", 1)[0]
                roots += package_roots(head, package)
                roots += self.distribution_roots(importer, head)
                roots += self.script_roots(importer, package)
            paths = module_files(origin.level, origin.module, package, roots)
        for path in paths:
            found = self.by_path.get(path)
            if found is not None and found is not importer:
                return found
        return None

    def distribution_roots(self, importer: CodeFacts, head: str) -> list[str]:
        """The folder a top-level package named `head` sits in when it is another
        distribution of the same repository (`libs/utils/src/utils/__init__.py`, beside
        the importer's): where Python finds it once that distribution is installed. Only
        where the tree holds one such package, not a test's, in the importer's language."""
        if self._top_packages is None:
            self._top_packages = {}
            for path, module in self.by_path.items():
                folder, name = os.path.split(path)
                if name != "__init__.py" or module.is_test or module.language != "python":
                    continue
                parent = os.path.dirname(folder)
                if os.path.join(parent, "__init__.py") in self.by_path:
                    continue  # a subpackage, not a top-level one
                self._top_packages.setdefault(os.path.basename(folder), set()).add(parent or ".")
        roots = self._top_packages.get(head, set())
        return list(roots) if len(roots) == 1 and importer.language == "python" else []

    def script_roots(self, importer: CodeFacts, package: str) -> list[str]:
        """The folders above a Python module (its own among them), nearest first, that hold
        a script (a module with an `if __name__ == "__main__":` block, not a test's):
        `python src/main.py` puts `src` first on sys.path, so `from settings import
        settings` in `src/clients/auth.py` loads `src/settings.py`, though an
        `src/__init__.py` makes the project the folder above `src`."""
        if importer.language != "python":
            return []
        if self._scripts is None:
            self._scripts = {
                os.path.dirname(path) or "."
                for path, module in self.by_path.items()
                if module.main_blocks and not module.is_test and module.language == "python"
            }
        known = self._script_roots.get(package)
        if known is not None:  # a module's every import asks the same of its folder
            return list(known)
        found: list[str] = []
        self._script_roots[package] = found
        folder = package or "."
        for _ in range(MAX_SCRIPT_DEPTH):
            if folder in self._scripts:
                found.append(folder)
            parent = os.path.dirname(folder) or "."
            if parent == folder:
                break
            folder = parent
        return found

    def django_settings(self, importer: CodeFacts) -> CodeFacts | None:
        """The settings module `django.conf.settings` reads, seen from a Python module:
        the one `settings.py` of its project (Django's layout, `<project>/settings.py`,
        which `DJANGO_SETTINGS_MODULE` names); None where the project has none or several."""
        key = (importer.language, importer.project)
        if key not in self.django:
            found = [
                module
                for module in self.settings.get(key, [])
                if os.path.basename(module.path) == "settings.py" and not module.is_test
            ]
            self.django[key] = found[0] if len(found) == 1 else None
        settings = self.django[key]
        return settings if settings is not importer else None

    def workspace_package(self, importer: CodeFacts, name: str) -> CodeFacts | None:
        """The entry module of a package of the scanned tree that a Node module imports by
        its name (`@acme/grpc-server`: a workspace's package, whose folder is named as its
        last part): the `index` module of the one program folder so named, at its top or in
        `src/` or `lib/` (tsc's and bundlers' layouts of what package.json's `main` names);
        None where no folder, or several, are so named."""
        if self.packages is None:
            self.packages = {}
            for module in self.by_path.values():
                # the modules of programs a package.json makes (the languages it names)
                if module.is_test or not LANGUAGES[module.language].project_files:
                    continue
                folder = os.path.normpath(module.project or ".")
                inside = os.path.relpath(os.path.normpath(module.path), folder)
                stem = os.path.splitext(inside)[0].replace(os.sep, "/")
                if stem in ("index", "src/index", "lib/index"):
                    self.packages.setdefault(os.path.basename(folder), []).append(module)
        parts = name.split("/")
        last = parts[-1] if len(parts) == (2 if name.startswith("@") else 1) else ""
        found = self.packages.get(last, []) if last else []
        folders = {os.path.normpath(m.project) for m in found}
        if len(folders) != 1 or importer in found:
            return None
        return min(found, key=lambda m: m.path.count(os.sep))

    def made_server(self, importer: CodeFacts, server: Server) -> Server | None:
        """A server another module's function makes (`made_by`), as the importer starts it,
        when that function returns one of the factory the importer's start implies; its
        options are judged in that module, so are left unknown here. None otherwise."""
        origin = server.made_by
        source = self.module(importer, origin) if origin is not None else None
        if origin is None or source is None:
            return None
        made = source.exports.get(origin.name)
        if not server.factory and isinstance(made, str) and made:
            return replace(server, factory=made, made_by=None)  # Python's: any factory
        if made != server.factory and not _options_helper(origin, made):
            return None
        return replace(server, made_by=None)

    def made_channel(self, importer: CodeFacts, channel: Channel) -> Channel | None:
        """A Python call of another module's function that keeps what it returns, as the
        channel that function makes of the parameter the call fills (its `channel
        <function>` export, followed through re-exports): at the call, with the
        function's factory and options (their literal in that module, where no fix of
        this call goes); None where the function makes none."""
        origin, source = channel.made_by, None
        for _ in range(MAX_DEPTH):
            source = self.module(importer, origin) if origin is not None else None
            if source is None or origin is None:
                return None
            helper = source.exports.get(f"channel {origin.name}")
            if isinstance(helper, ChannelHelper):
                break
            importer, origin = source, source.exports.get(origin.name)
            if not isinstance(origin, Imported):
                return None
        else:
            return None
        passed = dict(channel.passed)
        target = passed.get(helper.name)
        if target is None and helper.index is not None:
            target = passed.get(helper.index)
        options = self.options(source, helper.options)
        return replace(
            channel,
            factory=helper.factory,
            target=UNKNOWN if target is None else target,
            options=replace(options, literal=None),
            made_by=None,
            passed=(),
            made_in=f"by `{origin.name}` at {helper.loc.path}:{helper.loc.line}",
        )

    def value(self, importer: CodeFacts, value: Any, steps: int = 0) -> Any:
        if steps > MAX_DEPTH:
            return UNKNOWN
        if isinstance(value, Imported):
            source = self.module(importer, value)
            parent, dot, last = value.module.rpartition(".")
            if source is None and dot and not value.by_path:
                # `from app.config import settings` then `settings.URL`: an object, not a module
                value = replace(value, module=parent, name=f"{last}.{value.name}")
                source = self.module(importer, value)
            name, *members = value.name.split(".")
            if source is None or name not in source.exports:
                return UNKNOWN
            found = self.export(source, name, steps + 1)
            for member in members:
                found = found.get(member, UNKNOWN) if isinstance(found, dict) else UNKNOWN
            return found
        if isinstance(value, Setting):
            return self.setting(importer, value)
        if isinstance(value, BoundProperty):
            return self.bound(importer, value, steps)
        if isinstance(value, Passed):
            return self.passed(value, steps)
        if isinstance(value, PackageValue):
            return self.package_value(importer, value, steps)
        if isinstance(value, PackageField):
            return self.package_field(importer, value, steps)
        if isinstance(value, PackageEnv):
            return self.package_env(importer, value)
        if isinstance(value, ListenerOf):
            return self.listener_of(importer, value, steps)
        if isinstance(value, StructField):
            return self.struct_field(value, steps)
        if isinstance(value, Constructed):
            return self.constructed(importer, value, steps)
        if isinstance(value, FieldNetwork):
            return self.field_network(importer, value, steps)[0]
        if isinstance(value, ViperKey):
            return self.viper_key(importer, value)
        if isinstance(value, Alternatives):
            return one_of([self.value(importer, item, steps + 1) for item in value.values])
        if isinstance(value, Joined):
            return joined([self.value(importer, part, steps + 1) for part in value.parts])
        if isinstance(value, EnvRef) and isinstance(value.default, Imported | Joined):
            default = self.value(importer, value.default, steps + 1)
            known = isinstance(default, str | None) and not isinstance(default, Unknown)
            return replace(value, default=default if known else UNKNOWN)
        if isinstance(value, list):
            return [self.value(importer, item, steps + 1) for item in value]
        if isinstance(value, dict):
            return {key: self.value(importer, item, steps + 1) for key, item in value.items()}
        return value

    def export(self, source: CodeFacts, name: str, steps: int) -> Any:
        """What `source` exports as `name`, resolved: once, and again only when asked with
        more steps left than it was (an object exported to a thousand importers, or to
        itself twice a level, is resolved once, not once a use)."""
        key = (source.path, name)
        known = self.exported.get(key)
        if known is not None and known[0] <= steps:
            return known[1]
        found = self.value(source, source.exports[name], steps)
        self.exported[key] = (steps, found)
        return found

    def setting(self, importer: CodeFacts, wanted: Setting) -> Any:
        """What the project's settings files set the key to; when none does, the
        environment variable, else the default. Files that disagree (profiles: which runs is
        the deployment's choice) leave it unknown. A plain value in a file can still be
        overridden by the environment variable; a file's own `${NAME}` is what it reads."""
        found = [
            module.exports[wanted.key]
            for module in self.settings.get((wanted.source, importer.project), ())
            if wanted.key in module.exports
        ]
        if not found:
            return EnvRef(wanted.env, wanted.default)
        if any(value != found[0] for value in found):
            return UNKNOWN
        return EnvRef(wanted.env, found[0]) if isinstance(found[0], str) else found[0]

    def bound(self, importer: CodeFacts, wanted: BoundProperty, steps: int) -> Any:
        """What the module that declares the properties class exports for the property (a
        `Setting`), resolved there: the project's own class, else the one class of the
        scanned code so named; unknown when none is, or several."""
        key = f"{wanted.type_name}.{wanted.name}"
        declared = self._declaring(importer, key)
        if declared is not None:
            return self.value(declared, declared.exports[key], steps + 1)
        # a property of an object the class holds, whose class another file declares
        # (`app2.hostname`, `Host` declared elsewhere): bound under the holder's key
        holder, dot, rest = key.rpartition(".")
        declared = self._declaring(importer, holder) if dot and "." in holder else None
        setting = declared.exports[holder] if declared is not None else None
        if declared is None or not isinstance(setting, Setting):
            return UNKNOWN
        nested = Setting(
            setting.source,
            f"{setting.key}.{rest.lower().replace('-', '').replace('_', '')}",
            f"{setting.env}_{rest.upper()}",
            None,
        )
        return self.value(declared, nested, steps + 1)

    def _declaring(self, importer: CodeFacts, key: str) -> CodeFacts | None:
        """The module that exports a property: the project's own class, else the one class
        of the scanned code so named; None when none is, or several."""
        if self.declaring is None:  # the modules that export a property, made once
            self.declaring = {}
            for module in self.by_path.values():
                for name in module.exports:
                    self.declaring.setdefault(name, []).append(module)
        # the importer's language's: a settings file's keys are no class's
        declaring = [m for m in self.declaring.get(key, []) if m.language == importer.language]
        own = [m for m in declaring if m.project == importer.project]
        for found in (own, declaring):
            if len(found) == 1:
                return found[0]
            if found:
                return None
        return None

    def options(self, importer: CodeFacts, options: Options, steps: int = 0) -> Options:
        """Options with their values resolved, and those of the helpers they spread added
        (before their own: `append(helper(), more...)`)."""
        complete = options.complete
        entries: tuple[Option, ...] = ()
        for helper in options.pending:
            found = self.helper(importer, helper, steps)
            complete = complete and found.complete
            entries += found.entries
        entries += tuple(
            Option(e.key, settled(self.value(importer, e.value, steps)), e.loc)
            for e in options.entries
        )
        return replace(options, complete=complete, entries=entries, pending=())

    def channels(self, importer: CodeFacts, channel: Channel) -> list[Channel]:
        """A channel for each target its resolved target may be (facts.Alternatives); a
        factory's, whose callers each close what it gives in some programs and keep it in
        others, one for each (program_channels)."""
        long_lived = channel.long_lived
        if channel.made_by is not None:  # a Python call of another module's function
            made = self.made_channel(importer, channel)
            return [] if made is None else self.resolved_channel(importer, made)
        if channel.kept_by is not None:  # a factory whose callers each close what it gives
            folder = self.go_folder(importer, channel.kept_by.package)
            closes = self.go_closes(folder, channel.kept_by.function) if folder is not None else []
            long_lived = {c for _, c in closes} != {True}
            if long_lived and closes and self.splits < MAX_SPLITS:
                split = program_channels(self, importer, channel, closes)
                if split is not None:
                    self.splits += 1
                    return split
        return self.resolved_channel(importer, replace(channel, long_lived=long_lived))

    def resolved_channel(self, importer: CodeFacts, channel: Channel) -> list[Channel]:
        """The channel with its options and target resolved: one for each target."""
        options = self.options(importer, channel.options)
        scheme = channel.default_scheme
        if scheme == "passthrough" and importer.language == "go":
            scheme = self.go_scheme(importer) or scheme
        return [
            replace(channel, target=target, options=options, default_scheme=scheme, kept_by=None)
            for target in choices(self.value(importer, channel.target))
        ]

    def can_fail(self, importer: CodeFacts, origin: Imported, steps: int = 0) -> bool | None:
        """Whether an imported health servicer class can answer NOT_SERVING; None when no
        scanned module defines it."""
        source = self.module(importer, origin)
        if source is None or steps > MAX_DEPTH:
            return None
        if origin.name in source.health_classes:
            return source.health_classes[origin.name]
        again = source.exports.get(origin.name)
        return self.can_fail(source, again, steps + 1) if isinstance(again, Imported) else None

    def sets_lifetime(self, module: CodeFacts, pool: DbPool) -> bool:
        """Whether a module that can call the function that returns `pool` sets a pool's
        lifetime (`SetConnMaxLifetime`): the module itself, one of its package (its
        folder), one that imports its package (an import path that ends with the
        package's last two folders). It may be this pool's: its lifetime is then unknown."""
        folder = os.path.dirname(os.path.normpath(module.path))
        tail = "/" + "/".join(folder.replace(os.sep, "/").split("/")[-2:])
        return any(
            pool.lifetime_arg in other.called
            and (
                os.path.dirname(other.path) == folder
                or any(path.endswith(tail) for _, path in other.imports)
            )
            for other in self.by_path.values()
            if other.language == module.language
        )

    def _client_beans(self, module: CodeFacts) -> tuple[set[str], set[str]]:
        """The client types the module's project makes `@LoadBalanced` beans of, and
        those it makes other beans of (facts.BALANCED_BEANS, PLAIN_BEANS)."""
        key = (module.language, module.project)
        if key not in self._beans:
            balanced: set[str] = set()
            plain: set[str] = set()
            for other in self.settings.get(key, ()):
                balanced.update(other.exports.get(BALANCED_BEANS, ()))
                plain.update(other.exports.get(PLAIN_BEANS, ()))
            self._beans[key] = (balanced, plain)
        return self._beans[key]

    def discovered(self, module: CodeFacts) -> set[Loc]:
        """Where the module hands a URL to a load-balanced client (facts.BalancedUrl): the
        project makes a `@LoadBalanced` bean of the client's type, and either the
        injection point asks for it by `@LoadBalanced` or the project makes no other bean
        of that type (Spring Boot's own builder backs off when the project makes one)."""
        if not module.balanced_urls:
            return set()
        balanced, plain = self._client_beans(module)
        return {
            url.loc
            for url in module.balanced_urls
            if url.client in balanced and (url.qualified or url.client not in plain)
        }

    def facts(self, module: CodeFacts) -> CodeFacts:
        def resolve(importer: CodeFacts, value: Any) -> Any:
            return settled(self.value(importer, value))  # where one value stands

        servers, unmade = [], set()
        for server in module.servers:
            if server.made_by is not None:
                made = self.made_server(module, server)
                if made is None:  # not a server: what the module did with it says nothing
                    unmade.add(server.name)
                    continue
                server = made
            servers.append(replace(server, options=self.options(module, server.options)))
        servicers = []
        for servicer in module.health_servicers:
            if servicer.imported is None:
                servicers.append(servicer)
                continue
            can_fail = self.can_fail(module, servicer.imported)
            if can_fail is not None:  # a class defined nowhere scanned says nothing
                servicers.append(replace(servicer, class_can_fail=can_fail, imported=None))
        handlers, exits = [*module.sigterm_handlers], [*module.signal_exits]
        discovered = self.discovered(module)
        for origin, naming, loc in module.signal_helper_calls:
            source = self.module(module, origin)
            if source is not None and source.exports.get(origin.name) in naming:
                handlers.append(loc)
                exit = source.exports.get(f"{origin.name} exit")  # its handler exits at once
                if exit is not None:
                    exits.append(replace(exit, handler=loc))
        return replace(
            module,
            sigterm_handlers=handlers,
            signal_exits=exits,
            signal_helper_calls=[],
            channels=[
                found
                for c in [*module.channels, *module.made_channels]
                for found in self.channels(module, c)
            ],
            made_channels=[],
            servers=servers,
            http_served=self.http_served(module),
            starts={name for name in module.starts if name not in unmade},
            waits=[w for w in self.http_waits(module) if w.server not in unmade],
            stops=[
                replace(s, grace=resolve(module, s.grace))
                for s in module.stops
                if s.server not in unmade
            ],
            listens=[self._listen(module, x) for x in module.listens if x.server not in unmade],
            http_listens=[
                replace(x, address=resolve(module, x.address)) for x in module.http_listens
            ],
            http_clients=[
                replace(h, base_url=resolve(module, h.base_url)) for h in module.http_clients
            ],
            agent_requests=[
                replace(h, base_url=resolve(module, h.base_url)) for h in module.agent_requests
            ],
            db_pools=[
                replace(
                    d,
                    url=resolve(module, d.url),
                    lifetime=UNKNOWN
                    if d.returned and d.lifetime is None and self.sets_lifetime(module, d)
                    else resolve(module, d.lifetime),
                )
                for d in module.db_pools
            ],
            health_servicers=servicers,
            # a URL a load balancer resolves names a service ID, not a host and port
            urls=[(resolve(module, url), loc) for url, loc in module.urls if loc not in discovered],
            deferred=False,
        )

    def _listen(self, module: CodeFacts, listen: Listen) -> Listen:
        """A server's listen, resolved: with where its Unix network came from, when a
        field holds it (FieldNetwork)."""
        if isinstance(listen.address, FieldNetwork):
            address, via = self.field_network(module, listen.address, 0)
            return replace(listen, address=settled(address), network_from=via)
        return replace(listen, address=settled(self.value(module, listen.address)))


def resolve_imports(modules: Sequence[CodeFacts]) -> list[CodeFacts]:
    """The modules with every imported value resolved (new facts where one was deferred)."""
    if not any(module.deferred for module in modules):
        return list(modules)
    resolver = _Resolver(modules)
    return [resolver.facts(module) if module.deferred else module for module in modules]


def _options_helper(origin: Imported, made: Any) -> bool:
    """Whether a server made from what another module's function returns is one: the
    function returns a NestJS gRPC transport object (facts.OPTION_HELPER)."""
    return origin.name.startswith(f"{OPTION_HELPER} ") and made == GRPC_TRANSPORT


def _followed(value: Any, member: str) -> bool:
    """Whether a whole struct a call passes is followed to one of its fields (`_field_of`)."""
    return bool(member) and (
        (isinstance(value, Passed) and not value.member)
        or (isinstance(value, PackageField) and not value.path)
    )


def _field_of(value: Any, member: str) -> Any:
    """The field `member` of a struct a call passes whole, where it is one passed on again
    (a parameter: Passed) or another package's function returned it (PackageField): the
    same reference, to that field; else the value."""
    if not _followed(value, member):
        return value
    if isinstance(value, Passed):
        return replace(value, member=member)
    return replace(value, path=f".{member}")


def _member(value: Any, member: str) -> Any:
    """A field of a struct a call passes (its literal's fields, a dict; `Upstreams.Addr`
    one of a struct a field of it holds), or the value."""
    if not member:
        return value
    for name in member.split("."):
        value = value.get(name, UNKNOWN) if isinstance(value, dict) else UNKNOWN
    return value


def _viper_default(said: list[dict[str, Any]], key: str) -> Any:
    """What the `SetDefault` calls of a program's files give a key: None where none does,
    UNKNOWN where they differ."""
    defaults = {s["defaults"][key.lower()] for s in said if key.lower() in s.get("defaults", {})}
    return None if not defaults else defaults.pop() if len(defaults) == 1 else UNKNOWN


def _viper_variable(said: list[dict[str, Any]] | None, key: str) -> Any:
    """The variable viper reads a key from, as a program's files say (each file's
    `viper environment` export): with `AutomaticEnv`, the key's own (after the prefix,
    upper-cased, through the replacer), and each bound to it; an EnvRef where that is one
    name, with the key's default where no file reads settings from elsewhere; UNKNOWN
    where none or several are, a file sets the key itself, or files set other prefixes or
    replacers."""
    if not said:
        return UNKNOWN
    lower = key.lower()
    if any(s.get("set", ()) is None or lower in s.get("set", ()) for s in said):
        return UNKNOWN  # `viper.Set` overrides the environment
    prefixes = {s["prefix"] for s in said if "prefix" in s} or {""}
    replacers = [s["replaced"] for s in said if "replaced" in s] or [{}]
    if len(prefixes) != 1 or any(r != replacers[0] for r in replacers):
        return UNKNOWN
    prefix, replaced = prefixes.pop(), replacers[0]
    if prefix is None or replaced is None:
        return UNKNOWN

    def spelt(name: str) -> str:
        return name.translate({ord(old): new for old, new in replaced.items()})

    own = spelt((f"{prefix}_{key}" if prefix else key).upper())
    names = {own for s in said if s.get("automatic")}
    for s in said:
        bound = s.get("bound", {}).get(lower, ())
        names |= {own if n is None else spelt(n) if n else "" for n in bound}
    if len(names) != 1 or "" in names:
        return UNKNOWN
    default = _viper_default(said, key)
    if any(s.get("read") for s in said):
        default = UNKNOWN  # a settings file may set it, where the environment does not
    return EnvRef(names.pop(), default)
