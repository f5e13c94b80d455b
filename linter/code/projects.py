"""Which modules form one project: shutdown and health are judged per project (a SIGTERM
handler in another module of the same program counts), not per file and not across
unrelated programs that happen to be scanned together. A Python project is the folder
above its outermost package, a Java one the module folder above `src/`."""

from __future__ import annotations

import copy
import os
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import PurePath

from k8slb.code.facts import MENTIONED_BY_TEST, MENTIONED_OUTSIDE, SERVING_FACTS, CodeFacts
from k8slb.core import regex
from k8slb.languages import JVM, LANGUAGES
from k8slb.reading.build_files import Dockerfile


def project_root(path: str, scanned: set[str]) -> str:
    """The folder above the outermost package that holds the module: from the module's
    folder, go up while the folder is a package (has a scanned `__init__.py`). `path` and
    `scanned` are spelled as PurePath spells them (`_spelled`); strings, not PurePath
    objects, on this path: a monorepo has thousands of modules."""
    folder = _parent(path)
    while _init_of(folder) in scanned and _parent(folder) != folder:
        folder = _parent(folder)
    return folder


def _spelled(path: str) -> str:
    """The path as PurePath spells it: no doubled separators, no `.` parts."""
    if os.sep == "/" and _spelled_already(path):  # as a walk makes them: thousands a run
        return path
    return str(PurePath(path))


def _spelled_already(path: str) -> bool:
    """Whether PurePath (POSIX) leaves the path as it is: no empty or `.` part below its
    root (`/`, or exactly `//`, which POSIX keeps), and not empty."""
    if path.startswith("///"):
        return False
    if path == ".":
        return True
    rest = path[2:] if path.startswith("//") else path[1:] if path.startswith("/") else path
    if not rest:
        return path != ""
    parts = rest.split("/")
    return "" not in parts and "." not in parts


def _parent(path: str) -> str:
    """PurePath(path).parent, for a path spelled as PurePath spells it."""
    return os.path.dirname(path) or "."


def _init_of(folder: str) -> str:
    return "__init__.py" if folder == "." else os.path.join(folder, "__init__.py")


def assign_projects(modules: Iterable[CodeFacts], programs: Collection[str] = ()) -> None:
    """Each module's project: for a language with project files (`package.json`), the
    nearest folder above it among `programs` (the folders that hold one), else its own
    folder; for the others, the folder above its outermost package."""
    modules = list(modules)
    spelled = [_spelled(m.path) for m in modules]
    scanned = set(spelled)
    folders = {_spelled(folder) for folder in programs}
    for module, path in zip(modules, spelled, strict=True):
        if module.language in (*JVM, "spring"):  # Maven's and Gradle's layout
            java = java_project(path)
            module.project = java if java is not None else project_root(path, scanned)
        elif LANGUAGES[module.language].project_files:
            module.project = _program_folder(path, folders)
        else:
            module.project = project_root(path, scanned)


def _program_folder(path: str, programs: set[str]) -> str:
    folder = _parent(path)
    while folder not in programs and _parent(folder) != folder:
        folder = _parent(folder)
    return folder if folder in programs else _parent(path)


def java_project(path: str) -> str | None:
    """A Java file's project: the module folder above its `src/` (Maven's and Gradle's
    `src/main/java/...`), whatever package below it the file is in; None outside that
    layout (the file's folder is taken, as for any other)."""
    parts = path.split(os.sep)[:-1]
    marks = [i for i, part in enumerate(parts) if part == "src"]
    if not marks:
        return None
    laid_out = [i for i in marks if i + 1 < len(parts) and parts[i + 1] in ("main", "test")]
    at = (laid_out or marks)[-1]
    return os.sep.join(parts[:at]) or "."


# -- imports: which modules a program runs ----------------------------------------------------

_IMPORT = regex.compile(rb"^[ \t]*import[ \t]+([^#\n;]+)", regex.MULTILINE)
# `from a import` and the first character of the names; the rest is scanned (_from_imports)
_FROM = regex.compile(
    rb"^[ \t]*from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+([^#\n;])", regex.MULTILINE
)

Import = tuple[int, str]  # (level of a relative import, dotted name): (1, "health")


def module_imports(data: bytes) -> tuple[Import, ...]:
    """Every module a file may import, read from its `import` lines (even a file that is not
    worth a syntax tree: it can still lead to one that is). `from a import b` stands for
    `a` and `a.b`, which may be a submodule. A line inside a string counts too: the closure
    is an over-estimate, never a miss."""
    found: dict[Import, None] = {}
    for match in _IMPORT.finditer(data):
        for part in match.group(1).decode("utf-8", "replace").split(","):
            name = part.split(" as ")[0].strip().strip("\\").strip()
            if name:
                found[(0, name)] = None
    for dots, module_bytes, names_bytes in _from_imports(data):
        level = len(dots)
        module = module_bytes.decode("utf-8", "replace")
        names = names_bytes.decode("utf-8", "replace").strip("()\\ \t\r\n")
        if module:
            found[(level, module)] = None
        for part in names.split(","):
            name = part.split(" as ")[0].strip().strip("\\").strip()
            if name.isidentifier():
                found[(level, f"{module}.{name}" if module else name)] = None
    return tuple(found)


def _from_imports(data: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
    """(dots, module, names) of each `from` import: `(b, c)` up to its `)`, over lines,
    else up to the line's end, `#` or `;`. Scanned, not matched: with both in one pattern,
    each `from a import (` that no `)` closes made RE2 read to the end of the file again
    (it must know that the list does not close before it takes the line)."""
    resumed = 0  # where the last import ended: one cannot start inside it
    closer = 0  # the first `)` at or after the last `(` looked at; -1: there is none
    for match in _FROM.finditer(data):
        if match.start() < resumed:
            continue
        at = match.start(3)
        if data[at : at + 1] == b"(":
            if 0 <= closer < at:
                closer = data.find(b")", at)
            if closer >= 0:
                resumed = closer + 1
                yield match.group(1), match.group(2), data[at:resumed]
                continue
        line_end = data.find(b"\n", at)
        names = data[at : len(data) if line_end < 0 else line_end]
        names = names.split(b"#", 1)[0].split(b";", 1)[0]
        resumed = at + len(names)
        yield match.group(1), match.group(2), names


class ImportGraph:
    """Which scanned modules a program imports. An absolute import whose first name is no
    file or folder name of any scanned module is skipped before any path is made: most
    imports are of the standard library and installed packages."""

    def __init__(self, modules: Mapping[str, CodeFacts]) -> None:
        self.modules = modules  # by normalised path
        self.names = {part.removesuffix(".py") for path in modules for part in path.split(os.sep)}

    def closure(self, entry: str, bases: Iterable[str]) -> list[str]:
        """The scanned modules a program starting at `entry` imports, directly or not,
        entry first. Absolute imports are looked up from each folder of `bases` (the
        script's own folder is Python's first) and from the importer's project; cycles are
        safe."""
        modules = self.modules
        folders = [os.path.normpath(base) for base in bases]
        seen = [entry]
        queue = [entry]
        while queue:
            path = queue.pop()
            facts = modules.get(path)
            if facts is None:
                continue
            package = os.path.dirname(path)
            roots = [*folders, os.path.normpath(facts.project or package)]
            for level, name in facts.imports:
                head = name.split(".", 1)[0]
                if not level and head.isidentifier() and head not in self.names:
                    continue  # no scanned path has it: every candidate below would miss
                wider = roots if level else [*roots, *package_roots(head, package)]
                for found in module_files(level, name, package, wider):
                    if found in modules and found not in seen:
                        seen.append(found)
                        queue.append(found)
        return seen


def package_roots(head: str, folder: str) -> list[str]:
    """Where an absolute import whose first name is `head` may also be found: above each
    folder so named on `folder`'s path (`app.api` from `svc/app/main.py`: `svc`), the
    folder on `sys.path` of a program started as a module of that package (`uvicorn
    app.main:app`, `python -m app.main`)."""
    found = []
    while folder:
        parent = os.path.dirname(folder)
        if os.path.basename(folder) == head:
            found.append(parent or ".")
        if parent == folder:
            break
        folder = parent
    return found


def module_files(level: int, name: str, package: str, roots: list[str]) -> Iterator[str]:
    """The files an import may load: `name` (dotted) below the importer's `package` for a
    relative import (`level` dots), else below each of `roots`."""
    parts = name.split(".") if name else []
    if level:
        base = package
        for _ in range(level - 1):
            base = os.path.dirname(base)
        bases = [base]
    else:
        bases = roots
    for base in bases:
        stem = os.path.join(base, *parts) if parts else base
        yield os.path.normpath(stem + ".py")
        yield os.path.normpath(os.path.join(stem, "__init__.py"))


# What Node (and TypeScript's compiler, for `.ts` and `.tsx`) adds to a relative specifier
# that names no file as it is, in its order; then the same for the folder's `index`.
_NODE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx")


def node_module_files(specifier: str, folder: str) -> Iterator[str]:
    """The files a relative `require` or `import` (`./config`, `../lib/config.js`) of a
    module in `folder` may load, in Node's order: the file named, then with each suffix,
    then the folder's `index` file; in TypeScript `./x.js` names `./x.ts` too. A package's
    name (`lodash`, `@grpc/grpc-js`) names no scanned file: none."""
    if not specifier.startswith(("./", "../")) and specifier not in (".", ".."):
        return
    base = os.path.normpath(os.path.join(folder, specifier))
    yield base
    if base.endswith(".js"):  # what tsc compiles to `x.js` is `x.ts`
        yield base[: -len(".js")] + ".ts"
        yield base[: -len(".js")] + ".tsx"
    for suffix in _NODE_SUFFIXES:
        yield base + suffix
    for suffix in _NODE_SUFFIXES:
        yield os.path.join(base, "index" + suffix)


# What a relative specifier may name that is a module (none: Node's own resolution).
_MODULE_SUFFIXES = ("", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")


def node_loads(
    path: str, modules: Mapping[str, CodeFacts], names: Collection[str]
) -> tuple[str, ...] | None:
    """The scanned modules one Node module loads by its relative specifiers
    (CodeFacts.requires); None when that is not known: it names more than it keeps, a
    relative specifier of a module that is no scanned file, or a specifier that may be a
    path alias (`@/config`, `~/x`, `#lib`, or a bare or scoped name whose first two parts
    are in `names`, the folders and files of its program: a tsconfig `baseUrl`'s or
    `paths`')."""
    facts = modules.get(path)
    if facts is None:
        return None
    loaded: dict[str, None] = {}
    for specifier in facts.requires:
        if specifier == "*" or specifier.startswith(("@/", "~", "#")):
            return None
        if not specifier.startswith("."):
            if set(specifier.lstrip("@").split("/")[:2]) & set(names):
                return None  # a path alias, or a package named as a folder of the program
            continue
        found = next(
            (f for f in node_module_files(specifier, os.path.dirname(path)) if f in modules),
            None,
        )
        if found is not None:
            loaded[found] = None
        elif os.path.splitext(specifier)[1] in _MODULE_SUFFIXES:
            return None  # a module k8slb did not read (or a folder's package.json)
        # else `./styles.css`, `./data.json`
    return tuple(loaded)


def _shared(one: list[str], other: list[str]) -> int:
    """How many leading folders two paths share."""
    count = 0
    for left, right in zip(one, other, strict=False):
        if left != right:
            break
        count += 1
    return count


# the most leading elements of an import path looked up as a module's path (a go.mod's
# `module` line names a few; a hostile import path of thousands is not tried at each length)
MAX_IMPORT_DEPTH = 16


class GoPackages:
    """Which scanned Go files a `main` package links in: its own folder's files and, through
    its imports, the packages of the scanned tree they name. An import path is matched to
    the scanned folder that ends with the most of its elements (two at least, or all of a
    one-element path with a dot in it): `github.com/acme/shop/internal/geo` is the folder
    `internal/geo` of whatever checkout holds it, with no go.mod to read; a package at the
    top of its module (`github.com/acme/shop/registry`) is found below the folder such a
    match, or the module's go.mod, showed `github.com/acme/shop` to be. Standard library
    paths (`fmt`, `net/http`) name no scanned folder."""

    def __init__(
        self,
        modules: Mapping[str, CodeFacts],
        declared: Mapping[str, str] | None = None,
        shared: Collection[str] = (),
    ) -> None:
        """`declared`: the folder of each module path a go.mod names (`module <path>`);
        `shared`: the module paths more than one go.mod names (copies of one module)."""
        self.declared = dict(declared or {})
        self.shared = frozenset(shared)
        self.files: dict[str, list[str]] = {}  # folder -> its Go files (tests left out)
        for path, facts in modules.items():
            if facts.language == "go" and not facts.is_test:
                # a package at the top of a relative tree is `.`, as normpath names it
                self.files.setdefault(os.path.dirname(path) or ".", []).append(path)
        self.by_tail: dict[tuple[str, ...], list[str]] = {}
        self.deepest = 0  # no tail longer than the deepest folder names one
        for folder in self.files:
            parts = tuple(p for p in folder.split(os.sep) if p not in ("", "."))
            self.deepest = max(self.deepest, len(parts))
            for length in range(1, len(parts) + 1):
                self.by_tail.setdefault(parts[-length:], []).append(folder)
        self.modules = modules
        self._module_roots: dict[str, str] | None = None
        self._imported: set[str] | None = None  # the folders some scanned file imports
        self._programs: list[list[str]] | None = None
        # each folder above a package, by its name: the packages below it (_below)
        self._proper: dict[str, list[str]] | None = None

    def folder(self, import_path: str, importer: str | None = None) -> str | None:
        """The scanned folder of the package an import path names, if one is known. Seen
        from the folder `importer`, of the folders that end with the path's last two
        elements or more, the one that shares the most leading folders with the importer:
        copies of one module (a tutorial's skeleton and solution, each with a go.mod of the
        same module path) import their own packages."""
        if importer is not None:
            parts = tuple(import_path.split("/"))
            mine = importer.split(os.sep)
            ranked = sorted(
                (
                    (_shared(mine, folder.split(os.sep)), length, folder)
                    for length in range(2, min(len(parts), self.deepest) + 1)
                    for folder in self.by_tail.get(parts[-length:], [])
                ),
                reverse=True,
            )
            if ranked and (len(ranked) == 1 or ranked[0][:2] != ranked[1][:2]):
                return ranked[0][2]
        return self._folder(import_path)

    def _folder(self, import_path: str) -> str | None:
        declared = self._declared_folder(import_path)
        if declared is not None:
            return declared
        found = self._by_tail(import_path)
        if found is not None:
            return found[0]
        # a package at the top of its module (`<module>/registry`): below the folder that
        # another import of the same module showed to be the module's
        prefix, _, name = import_path.rpartition("/")
        root = self._roots().get(prefix)
        folder = os.path.normpath(os.path.join(root, name)) if root is not None else None
        return folder if folder in self.files else None

    def module_folder(self, import_path: str) -> str | None:
        """The folder of the tree an import path names below the module a go.mod declares
        (`antrea.io/antrea/v2/cmd/agent` of the module `antrea.io/antrea/v2` at the top:
        `cmd/agent`), as the go command finds it, whether or not it holds scanned files (a
        pattern's `.../cmd`); None for a path below no module declared once."""
        parts = import_path.split("/")
        for length in range(min(len(parts), MAX_IMPORT_DEPTH), 0, -1):
            module = "/".join(parts[:length])
            root = self.declared.get(module)
            if root is not None and module not in self.shared:
                return os.path.normpath(os.path.join(root, *parts[length:]))
        return None

    def _declared_folder(self, import_path: str) -> str | None:
        """The scanned folder an import path names below the module a go.mod declares, as
        the go command finds it: the longest module path the import starts with, then the
        rest of the path below that go.mod's folder (`shop-api/internal/app` of the module
        `shop-api` whose go.mod is in `services/shop`: `services/shop/internal/app`, whatever
        the folders are named). A module path two go.mod files declare names neither."""
        if not self.declared:
            return None
        parts = import_path.split("/")
        for length in range(min(len(parts), MAX_IMPORT_DEPTH), 0, -1):
            module = "/".join(parts[:length])
            root = self.declared.get(module)
            if root is None or module in self.shared:
                continue
            folder = os.path.normpath(os.path.join(root, *parts[length:]))
            return folder if folder in self.files else None
        return None

    def _by_tail(self, import_path: str) -> tuple[str, int] | None:
        """The folder an import path names by its tail, and how many elements matched."""
        parts = tuple(import_path.split("/"))
        shortest = 2 if len(parts) > 1 or "." not in parts[0] else 1
        for length in range(min(len(parts), self.deepest), shortest - 1, -1):
            found = self.by_tail.get(parts[-length:], [])
            if len(found) == 1:
                return found[0], length
            if found:
                return None  # more than one folder ends so: none is known to be it
        return None

    def _roots(self) -> dict[str, str]:
        """The folder each module path stands for, learnt from the imports matched below
        it (`<module>/services/geo` is the folder `services/geo`: `<module>` is `.`); a
        path two folders claim is left out."""
        if self._module_roots is None:
            roots: dict[str, str | None] = {}
            for facts in self.modules.values():
                if facts.language != "go":
                    continue
                for _, imported in facts.imports:
                    found = self._by_tail(imported)
                    parts = imported.split("/")
                    if found is None or found[1] >= len(parts):
                        continue
                    folder, length = found
                    prefix = "/".join(parts[:-length])
                    root = os.path.normpath(os.path.join(folder, *[".."] * length))
                    roots[prefix] = root if roots.get(prefix, root) == root else None
            self._module_roots = {k: v for k, v in roots.items() if v is not None}
            self._module_roots |= self.declared  # what a go.mod says, over what is inferred
        return self._module_roots

    def programs(self) -> list[list[str]]:
        """The files of each program of the tree: the closure of every package no scanned
        file imports (a `main`; a library no one imports stands for itself), read once."""
        if self._programs is None:
            imported = self.imported()
            self._programs = [
                self.closure(top) for top in sorted(self.files) if top not in imported
            ]
        return self._programs

    def imported(self) -> set[str]:
        """The folders some scanned Go file imports (a `main` package is in none)."""
        if self._imported is None:
            self._imported = {
                found
                for facts in self.modules.values()
                if facts.language == "go"
                for _, imported in facts.imports
                if (found := self._folder(imported)) is not None
            }
        return self._imported

    def program_named(self, binary: str) -> str | None:
        """The folder of the one scanned `main` package a binary of that name is built
        from (`go build` names it for its folder): a folder so named that no scanned file
        imports (a `main` package cannot be imported); of several, the one whose files say
        `package main` (a library no scanned file imports is no program); None when there
        is not exactly one."""
        imported = self.imported()
        named = [
            folder
            for folder in self.by_tail.get((binary,), [])
            if os.path.basename(folder) == binary and folder not in imported
        ]
        if len(named) > 1:
            named = [folder for folder in named if self.is_main(folder)]
        return named[0] if len(named) == 1 else None

    def is_main(self, folder: str) -> bool:
        """Whether the package in `folder` is a program's: a file of it says `package main`."""
        return any(self.modules[path].package == "main" for path in self.files.get(folder, ()))

    def is_library(self, folder: str) -> bool:
        """Whether the packages at and below `folder` are all known to be libraries (generated
        stubs, a client): each file's package clause read, and none `main`."""
        below = [path for package in self._at_or_below(folder) for path in self.files[package]]
        return bool(below) and all(self.modules[p].package not in ("", "main") for p in below)

    def mains_below(self, folder: str) -> list[str]:
        """The folders of the `main` packages at and below `folder` (`.`: the whole tree)."""
        return sorted(p for p in self._at_or_below(folder) if self.is_main(p))

    def _at_or_below(self, folder: str) -> list[str]:
        """The package folders at or below `folder` (`_at_or_below`), looked up by the
        folders above each package: every container's link asks of its folder, and a scan
        of every package each time was quadratic (at 3,000 services most of linking)."""
        if folder == ".":
            return [p for p in self.files if _at_or_below(p, folder)]
        if self._proper is None:
            self._proper = {}
            for package in self.files:
                for at, char in enumerate(package):
                    if char == os.sep:  # `a/b/c` is below `a/b`, `a`, and `` (absolute)
                        self._proper.setdefault(package[:at], []).append(package)
        own = [folder] if folder in self.files else []
        return own + self._proper.get(folder.rstrip(os.sep), [])

    def closure(self, folder: str) -> list[str]:
        """The Go files of the package in `folder` and of every scanned package it imports,
        directly or not; the package's own files first."""
        folder = os.path.normpath(folder)
        seen, queue, files = {folder}, [folder], []
        while queue:
            current = queue.pop(0)
            for path in sorted(self.files.get(current, [])):
                files.append(path)
                for _, imported in self.modules[path].imports:
                    found = self._folder(imported)
                    if found is not None and found not in seen:
                        seen.add(found)
                        queue.append(found)
        return files


def test_support(modules: Sequence[CodeFacts]) -> list[CodeFacts]:
    """The modules, with the Go files of test support marked as tests (new facts): a
    package that no `main` package of the tree links in (GoPackages.closure) and that only
    test files import, from folders other than its own (`testonly`, a test database's
    set-up, a generated mock), directly or through other such packages. It is in no
    program a container runs; its servers and pools are the tests'. A package that
    nothing imports still stands for itself (a library's), and so does one only its own
    folder's tests import."""
    go = {os.path.normpath(m.path): m for m in modules if m.language == "go"}
    if not any(m.is_test for m in go.values()) or not any(m.package == "main" for m in go.values()):
        return list(modules)
    packages = GoPackages(go)
    linked = {
        os.path.dirname(path) or "."
        for folder in packages.files
        if packages.is_main(folder)
        for path in packages.closure(folder)
    }
    tested: set[str] = set()  # folders a test file of another folder imports
    uses: dict[str, set[str]] = {}  # folder -> the other folders its code (no test) imports
    for path, facts in go.items():
        here = os.path.dirname(path) or "."
        for _, imported in facts.imports:
            found = packages.folder(imported, here)
            if found is None or found == here or found in linked:
                continue
            if facts.is_test:
                tested.add(found)
            else:
                uses.setdefault(here, set()).add(found)
    # what code outside the candidates imports, directly or through candidates, is not
    # theirs alone: one walk of the imports (each folder once)
    used = [f for here, found in uses.items() if here not in tested for f in found]
    seen: set[str] = set()
    while used:
        folder = used.pop()
        if folder not in seen:
            seen.add(folder)
            used += uses.get(folder, ())
    support = tested - seen
    if not support:
        return list(modules)
    return [
        _as_test(m) if m.language == "go" and not m.is_test and _folder_of(m) in support else m
        for m in modules
    ]


# Folders whose name makes the code below them a test's (each reader's is_test_path)
_TEST_FOLDERS = frozenset({"tests", "test", "testing", "__tests__"})
# The languages whose reader reads a test's file as whole as any other (Java's and
# Kotlin's skip a test's services and clients; Go tells a test by its file's name only)
_READ_WHOLE = frozenset({"python", "javascript", "typescript"})
# What a test's own file is named (`test_x.py`, `x_test.py`, `conftest.py`, `x.spec.ts`)
_TEST_FILE = regex.compile(r"^(?:test_.*|.*_test\.py|conftest\.py|.*\.(?:test|spec)\..*)$")
# An image that runs tests or load, not a program (`pytest`, `npm test`, `jest`, `locust`)
_TEST_RUNNERS = frozenset(
    {"pytest", "py.test", "jest", "mocha", "vitest", "tox", "nox", "locust", "k6", "artillery"}
)


def built_in_test_folders(
    modules: Sequence[CodeFacts], dockerfiles: Mapping[str, Dockerfile]
) -> list[CodeFacts]:
    """The modules, with a program built below a test folder taken for a program: a
    Python, JavaScript or TypeScript module that a folder named `tests` (`test`,
    `testing`, `__tests__`) above it alone made a test's is no test when a Dockerfile of
    the tree (`Dockerfile`, `x.Dockerfile`, `Dockerfile.x`) lies in a folder between that
    test folder and the module, and runs a command that is no test runner's: the image
    is an application that end-to-end tests deploy (a demo server under
    `tests/e2e/apps/web/`), and its modules are the program a container runs. The
    module's path below the Dockerfile's folder must still look like no test's (no test
    folder in it, no `test_x.py` or `x.spec.js` name). New facts (a parse may be shared
    through the cache: never changed)."""
    roots: set[str] = set()
    for path, dockerfile in dockerfiles.items():
        folder = os.path.dirname(os.path.normpath(path))
        if not _TEST_FOLDERS.intersection(folder.split(os.sep)):
            continue
        runs = dockerfile.entrypoint or dockerfile.cmd or ()
        words = {os.path.basename(w) for w in runs[:4]}
        named = any("test" in os.path.basename(w).lower() for w in runs[:2])  # run_tests.sh
        if runs and not words & _TEST_RUNNERS and "test" not in runs[1:3] and not named:
            roots.add(folder)
    if not roots:
        return list(modules)
    return [_as_program(m) if _built_below(m, roots) else m for m in modules]


def _built_below(module: CodeFacts, roots: set[str]) -> bool:
    """Whether the test module is a program's: read whole, in a folder at or below one
    of `roots`, by a path below it that names no test."""
    if not module.is_test or module.language not in _READ_WHOLE:
        return False
    path = os.path.normpath(module.path)
    root = os.path.dirname(path)
    while root not in roots:  # up the module's folders (as deep as its path, no deeper)
        if root in ("", os.sep, "."):
            return False
        root = os.path.dirname(root)
    below = os.path.relpath(path, root).split(os.sep)
    return not _TEST_FOLDERS.intersection(below[:-1]) and _TEST_FILE.search(below[-1]) is None


def _as_program(module: CodeFacts) -> CodeFacts:
    """A copy marked no test (a parse may be shared through the cache: never changed)."""
    marked = copy.copy(module)
    marked.is_test = False
    return marked


# Callers followed up from a function to the tests that call it (test_only_code)
MAX_CALLER_DEPTH = 8
# Functions of the tree judged: those holding a server, a wait or a stop (past them: real)
MAX_JUDGED = 2_000
_OWN_TEST = "="  # a mention in a `_test.go` file (test_only_code)


def test_only_code(modules: Sequence[CodeFacts]) -> list[CodeFacts]:
    """The modules, with what no program runs taken out of Go files that are no tests':
    the servers, listeners, waits and stops of a top-level function that only tests call
    (languages/go/parse_callers.py: every mention of its name in the tree is in a `_test.go`
    file of another folder, in a function given a test's handle, or in a function only
    tests call, followed MAX_CALLER_DEPTH callers up). A function the tree never
    mentions, or only its own folder's tests, stands for itself (`main`, a library's), and
    one mentioned outside any function, or handed on as a value from a function that is
    not only the tests', is real. Methods are known by
    their name alone: one of any type named the same that a program calls keeps them all
    real. When a Go file was not read whole, nothing is taken out."""
    go = [m for m in modules if m.language == "go"]
    if not any(m.is_test for m in go) or not all(m.callers_read for m in go):
        return list(modules)
    # name -> (caller, the folder of the file that mentions it): a `_test.go` file's as
    # OWN_TEST, a test's helper's (given a test's handle, or in test support) as a test's
    mentioned: dict[str, set[tuple[str, str]]] = {}
    for module in go:
        folder = _folder_of(module)
        own = module.path.endswith("_test.go")
        for name, callers in module.mentions.items():
            found = mentioned.setdefault(name, set())
            if own or module.is_test:
                found.add((_OWN_TEST if own else MENTIONED_BY_TEST, folder))
            else:
                found.update((caller, folder) for caller in callers)
    # a folder's package name (`fakes`): another package calls its functions so
    packages = {_folder_of(m): m.package for m in go if not m.path.endswith("_test.go")}
    known: dict[tuple[str, str], bool] = {}

    def only_tests(name: str, folder: str, depth: int) -> bool:
        """Whether every mention of `name`, declared in `folder`, is a test's: a test's
        helper's, a test file's of another folder (its own folder's tests only try it), or
        a function's that only tests call (a cycle, or callers deeper than
        MAX_CALLER_DEPTH, keep it real); known once a name and folder."""
        key = (name, folder)
        if key not in known:
            known[key] = False  # a cycle back to it: not only the tests'
            qualified = f"{packages.get(folder, '')}.{name}"
            callers = {
                (caller, where)
                for caller, where in mentioned.get(name, set()) | mentioned.get(qualified, set())
                if caller != name and (caller, where) != (_OWN_TEST, folder)
            }
            known[key] = (
                bool(callers)
                and depth < MAX_CALLER_DEPTH
                and all(
                    caller in (MENTIONED_BY_TEST, _OWN_TEST)
                    or (caller != MENTIONED_OUTSIDE and only_tests(caller, where, depth + 1))
                    for caller, where in callers
                )
            )
        return known[key]

    judged = 0
    changed: dict[int, CodeFacts] = {}
    for module in go:
        if module.is_test or not module.spans:
            continue
        spans = []
        for name, first, last in module.spans:
            judged += 1
            if judged <= MAX_JUDGED and only_tests(name, _folder_of(module), 0):
                spans.append((first, last))
        if spans:
            changed[id(module)] = _without(module, spans)
    return [changed.get(id(m), m) for m in modules]


def _without(module: CodeFacts, spans: list[tuple[int, int]]) -> CodeFacts:
    """A copy of the module without the serving facts written within `spans` (a parse may
    be shared through the cache: never changed)."""
    kept = copy.copy(module)  # (copied as pickled: parse_codec.py)
    kept.load()  # every field at hand before some are set: loading would set them again
    for kind in SERVING_FACTS:
        facts = getattr(kept, kind)
        setattr(
            kept,
            kind,
            [f for f in facts if not any(a <= f.loc.line <= b for a, b in spans)],
        )
    return kept


def _folder_of(module: CodeFacts) -> str:
    return os.path.dirname(os.path.normpath(module.path)) or "."


def _as_test(module: CodeFacts) -> CodeFacts:
    """A copy marked a test (a parse may be shared through the cache: never changed)."""
    marked = copy.copy(module)
    marked.is_test = True
    return marked


def _at_or_below(inner: str, outer: str) -> bool:
    """Whether the folder `inner` is `outer` or inside it (both as normpath names them;
    `.`, a relative tree's top, holds every relative folder)."""
    if outer == ".":
        return not os.path.isabs(inner) and inner != ".." and not inner.startswith(".." + os.sep)
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


_COMPILED_SUFFIXES = (".js", ".cjs", ".mjs")
_TYPESCRIPT_SUFFIXES = (".ts", ".tsx", ".mts", ".cts")


def without_build_output(modules: list[CodeFacts]) -> list[CodeFacts]:
    """The modules less the JavaScript a compiler wrote (CodeFacts.compiled) from a
    TypeScript module that is scanned too: the same program read twice would be reported
    twice. The source is the compiled file's sibling, or sits where it would were one folder
    of its path left out (tsc's `outDir`: `dist/server.js`, `typescript/src/server.js` from
    `src/server.ts`) or named `src` instead (`rootDir` src: `dist/server.js`). Compiled
    JavaScript whose source is not scanned is all there is of the program, and is read."""
    scanned = {_spelled(m.path) for m in modules if m.language == "typescript"}
    if not scanned:
        return modules
    return [m for m in modules if not (_has_source(_spelled(m.path), scanned) and m.compiled)]


def _has_source(path: str, typescript: set[str]) -> bool:
    if not path.endswith(_COMPILED_SUFFIXES):
        return False
    parts = path[: path.rindex(".")].split("/")
    stems = [parts]  # the sibling
    for at in range(len(parts) - 1):  # a folder left out, or named `src`
        stems.append(parts[:at] + parts[at + 1 :])
        stems.append([*parts[:at], "src", *parts[at + 1 :]])
    return any(
        "/".join(stem) + suffix in typescript for stem in stems for suffix in _TYPESCRIPT_SUFFIXES
    )
