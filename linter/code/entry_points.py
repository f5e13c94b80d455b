"""What a container's command line runs: the Python script or module at its start, or the
Node.js module (`node server.js`, `npm start` and `npm run NAME` through the package's
scripts, `node .` through its `main`).

`python server.py`, `python -u -m app`, `gunicorn -b :8000 app.wsgi:application`,
`uvicorn main:app`, `flask --app main run`, `locust -f load.py`,
`sh -c "cd /app && exec python server.py"`,
wrappers such as `tini --`, `dumb-init`, `opentelemetry-instrument` or `ddtrace-run` in
front, or a script run as a program (`/app/server.py`). Nothing is run; a word with a
variable in it is no evidence. Apart, the application module a launcher loads more code
around (`celery -A app.queues worker`: `app_module`), which says the program's package.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from dataclasses import replace

from k8slb.code.launchers import IN_PROCESS, PACKAGE_MANAGERS
from k8slb.core import regex
from k8slb.core.record import record
from k8slb.core.shell_words import shell_words
from k8slb.reading.build_files import OUTPUT_FOLDERS

_PYTHON = regex.compile(r"^python(?:\d+(?:\.\d+)?)?$")
_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh"})
# ASGI/WSGI servers whose first `module:attribute` argument is the application.
_APP_SERVERS = frozenset(
    {"gunicorn", "uvicorn", "hypercorn", "daphne", "granian", "waitress-serve", "gevent"}
)
# Launchers whose program is the value of a flag, by the flags their documentation gives:
# Locust's `-f`/`--locustfile` (the .py file, or module, of the users it runs). With no
# such flag the program is not named on the line (Locust's default, `locustfile`, may be
# any folder's): no entry. Not Celery's `-A`: its worker loads the tasks the app
# autodiscovers, which the module's imports do not name (its package: `app_module`).
_PROGRAM_FLAGS: dict[str, tuple[str, ...]] = {"locust": ("-f", "--locustfile")}
_DOTTED = regex.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_APP = regex.compile(r"^(?:--app=)?([A-Za-z_][\w.]*):[A-Za-z_][\w.]*(?:\(.*\))?$")
# Python's options that take a value: `python -W ignore -X dev server.py`.
_PYTHON_VALUE_OPTIONS = frozenset({"-W", "-X", "-c", "--check-hash-based-pycs"})
_SEPARATORS = frozenset({"&&", ";", "||", "|", "&"})
_NODE = frozenset({"node", "nodejs"})
_NODE_SUFFIXES = (".js", ".mjs", ".cjs", ".ts")
_PACKAGE_MANAGERS = frozenset(PACKAGE_MANAGERS)
# Node's options that take a value: `node -r dotenv/config server.js`.
_NODE_VALUE_OPTIONS = frozenset({"-r", "--require", "--import", "--loader", "--env-file"})


@record
class Entry:
    """A script (a path as the container sees it: absolute, or from its working folder)
    or a module (dotted), and the words that say so."""

    script: str | None
    module: str | None
    words: str
    package_script: str | None = None  # `npm start`: the package.json script it runs
    # the folder of that package.json, from where it runs (`npm --prefix web start`)
    package_folder: str | None = None
    node: bool = False  # a Node.js module (or script), not Python's
    # the programs a shell's script runs beside it, in the background (`a & b & it`)
    beside: tuple[Entry, ...] = ()
    # the programs its list runs after it exits (`it && b; c`): none while it serves
    then: tuple[Entry, ...] = ()

    def relative_paths(self) -> list[str]:
        """The source files it can stand for, relative to the folder it runs in."""
        if self.script is not None and self.node:
            if self.script.endswith(_NODE_SUFFIXES):
                return [self.script]
            return [f"{self.script}.js", f"{self.script}/index.js", self.script]
        if self.script is not None:
            return [self.script]
        assert self.module is not None
        base = self.module.replace(".", "/")
        return [f"{base}.py", f"{base}/__main__.py", f"{base}/__init__.py"]


# Folders a build writes a Node program's compiled JavaScript to (tsc's `outDir`, Nest's
# and most bundlers' `dist`): not the source the reader scanned.
_SOURCE_SUFFIXES = (".ts", ".js", ".mts", ".mjs", ".cts", ".cjs")


def compiled_sources(script: str) -> list[str]:
    """The sources a Node script in a compiled-output folder may be built from, as paths
    that end a module's path: `dist/apps/auth/main` from `apps/auth/main.ts` (tsc) or
    `apps/auth/src/main.ts` (Nest's sourceRoot, tsc's rootDir `src`). None for a script
    outside such a folder."""
    parts = [part for part in posixpath.normpath(script).split("/") if part not in ("", ".")]
    output = next((at for at, part in enumerate(parts) if part in OUTPUT_FOLDERS), None)
    if output is None or output == len(parts) - 1:
        return []
    tail = parts[output + 1 :]
    stem = tail[-1]
    for suffix in _NODE_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    found: list[str] = []
    for folders in (tail[:-1], [*tail[:-1], "src"]):
        base = "/".join([*folders, stem])
        found += [f"{base}{suffix}" for suffix in _SOURCE_SUFFIXES]
        found += [f"{base}/index{suffix}" for suffix in _SOURCE_SUFFIXES]
    return found


# A package.json script longer than this is not read for a bundler's command.
MAX_BUILD_SCRIPT = 4096
# Bundlers that write one file from one entry module, and how they name it: esbuild's
# and `bun build`'s `--outfile` (or `--outdir`, where the file takes the entry's name),
# ncc's `build ENTRY -o DIR` (DIR/index.js; DIR `dist` when not given).
_BUNDLERS = frozenset({"esbuild", "bun", "ncc"})


def bundled_files(script: str) -> list[tuple[str, str]]:
    """The (entry module, file written) pairs of a package.json script's bundler commands
    (`tsc && esbuild src/server.ts --bundle --outfile=dist/index.js`: `src/server.ts` and
    `dist/index.js`), as paths from the package's folder; a command given several entries,
    or a variable, names none."""
    if len(script) > MAX_BUILD_SCRIPT:
        return []
    try:
        words = shell_words(script, comments=True)
    except ValueError:
        return []
    found: list[tuple[str, str]] = []
    command: list[str] = []
    for word in [*words, ";"]:
        if word not in _SEPARATORS:
            command.append(word)
            continue
        while command and command[0] in ("npx", "pnpm", "yarn", "exec", "bunx", "dlx"):
            command = command[1:]  # `npx esbuild`, `pnpm exec esbuild`
        bundled = _bundled(command) if command else None
        if bundled is not None:
            found.append(bundled)
        command = []
    return found


def _bundled(words: list[str]) -> tuple[str, str] | None:
    program = posixpath.basename(words[0])
    if program not in _BUNDLERS or any("$" in word for word in words):
        return None
    rest = words[1:]
    if program in ("bun", "ncc"):
        if not rest or rest[0] != "build":
            return None
        rest = rest[1:]
    entries: list[str] = []
    options: dict[str, str] = {}
    at = 0
    while at < len(rest):
        word = rest[at]
        name, equals, value = word.partition("=")
        if name in ("--outfile", "--outdir", "-o", "--out") and not equals:
            value = rest[at + 1] if at + 1 < len(rest) else ""
            at += 1
        if name in ("--outfile", "--outdir", "-o", "--out"):
            options[name] = value
        elif not word.startswith("-") and word.endswith(_SOURCE_SUFFIXES):
            entries.append(word)
        at += 1
    if len(entries) != 1:
        return None
    (entry,) = entries
    stem = posixpath.splitext(posixpath.basename(entry))[0]
    if program == "ncc":
        written = posixpath.join(options.get("-o") or options.get("--out") or "dist", "index.js")
    elif "--outfile" in options:
        written = options["--outfile"]
    elif "--outdir" in options:
        written = posixpath.join(options["--outdir"], f"{stem}.js")
    else:
        return None
    if not written or not entry:
        return None
    return posixpath.normpath(entry), posixpath.normpath(written)


# Runtimes whose program is the application they are given (`java -jar`, `uwsgi --ini`)
_RUNTIMES = frozenset({"java", "uwsgi", "deno", "bun", "dotnet", "ruby", "php"})


def runs_code(program: str) -> bool:
    """Whether a program by its name runs an application's code it is given or configured
    with (Python, Node.js, an application server, a package manager, a JVM), rather than
    being the server itself (`postgres`, `redis-server`)."""
    name = posixpath.basename(program)
    return bool(
        _PYTHON.match(name)
        or name in _NODE
        or name in _PACKAGE_MANAGERS
        or name in _APP_SERVERS
        or name in IN_PROCESS
        or name in _RUNTIMES
        or name in _PROGRAM_FLAGS
    )


def entry_of(argv: Sequence[object]) -> Entry | None:
    """The Python entry point of a command line, or None when it names none."""
    script = shell_script_of(argv)
    if script is not None:
        return _from_shell(script)
    return _from_words([str(word) for word in argv])


def shell_script_of(argv: Sequence[object]) -> str | None:
    """The script of a `sh -c SCRIPT` command line (any shell, by path or name), else None."""
    words = [str(word) for word in argv[:3]]
    if len(words) == 3 and posixpath.basename(words[0]) in _SHELLS and words[1] == "-c":
        return words[2]
    return None


# Commands a `sh -c` script runs before its program that only wait or print, leaving the
# folder as it was (`sleep 30 && /usr/bin/api --port=80`), and how many are looked past
_WAITS = frozenset({"sleep", "echo", "printf", "true", ":", "set", "export", "ulimit", "umask"})
MAX_WAITS = 8


def script_words(script: str) -> list[str]:
    """The words of the command a `sh -c` script runs as its program: its first, past up
    to MAX_WAITS commands in front that only wait or print (`sleep 30 && /bin/api -v` ->
    `/bin/api -v`; `sleep 5; exec /bin/api`), split on blanks; the script's words as they
    are when none is in front, or nothing follows them."""
    words = script.split()
    rest = words
    for _ in range(MAX_WAITS):
        if not rest or rest[0] not in _WAITS:
            break
        ends = [at for at, word in enumerate(rest) if word in ("&&", ";") or word.endswith(";")]
        if not ends:
            return words
        after = rest[ends[0] + 1 :]
        if not after:
            return words
        rest = after
    return rest


def _from_shell(script: str) -> Entry | None:
    """The program of a `sh -c` script's last list that runs Python or Node
    (`cd /app && python x.py`), with the programs it runs beside it: each list sent to the
    background with `&` (its own such program; `migrate && runserver & python grpc.py`
    runs manage.py and grpc.py). Of a list's programs (`a && b`, `a; b`), the one that
    runs while the pod serves is `a` (`b` only once `a` has exited), or a server its
    launcher starts (`python manage.py migrate && gunicorn app.wsgi`): `runner`."""
    try:
        words = shell_words(script, comments=True)
    except ValueError:
        return None
    lists: list[list[Entry]] = [[]]  # each list's programs, in order; `&` ends one
    command: list[str] = []
    for word in [*words, "&"]:
        if word.endswith(";") and word != ";":  # `python a.py; python b.py`
            command.append(word[:-1])
            word = ";"
        if word not in _SEPARATORS:
            command.append(word)
            continue
        entry = _from_words(command)
        if entry is not None:
            lists[-1].append(entry)
        if word == "&":
            lists.append([])
        command = []
    runners = [runner(programs) for programs in lists if programs]
    if not runners:
        return None
    *background, last = runners
    beside = tuple(entry for entry in background if entry != last)
    return replace(last, beside=beside) if beside else last


def runner(programs: Sequence[Entry]) -> Entry:
    """Of the programs a list runs one after the other, the one that runs while the pod
    serves: a server an application server starts (`gunicorn`, `uvicorn`, `flask run`:
    what runs before it is a set-up that exits), else the first (what follows it runs only
    once it has exited); with the programs after it (`then`)."""
    served = [
        at
        for at, entry in enumerate(programs)
        if posixpath.basename(entry.words.split()[0]) in (*_APP_SERVERS, *IN_PROCESS)
    ]
    at = served[0] if served else 0
    return replace(programs[at], then=tuple(programs[at + 1 :]))


def _from_words(words: list[str]) -> Entry | None:
    for number, word in enumerate(words):
        if "$" in word:
            return None
        name = posixpath.basename(word)
        if _PYTHON.match(name):
            return _python_arguments(words[number:])
        if name in _NODE:
            return _node_arguments(words[number:])
        if name in _PACKAGE_MANAGERS:
            return _package_run(words[number:])
        if name in IN_PROCESS:
            return _app_option(words[number:])
        if name in _PROGRAM_FLAGS:
            return _flag_program(words[number:], _PROGRAM_FLAGS[name])
        if name in _APP_SERVERS:
            return _app_server(words[number:])
        if word.endswith(".py") and not word.startswith("-"):
            return Entry(word, None, " ".join(words[number:]))
    return None


# Launchers given their application as a module by an option, which import it and then
# load more code by name (Celery's `-A`/`--app`, before or after its subcommand: the
# tasks the app autodiscovers or lists in `include`): the module says where the program's
# code is, not all of it, so it is no entry (no import closure), but its package is.
_APP_LOADERS: dict[str, tuple[str, ...]] = {"celery": ("-A", "--app")}


def app_module(argv: Sequence[object]) -> Entry | None:
    """The application module a launcher of _APP_LOADERS is given (`celery -A
    acme.queues worker`, `python -m celery --app=acme.tasks:app beat`: `acme.queues`,
    `acme.tasks`), past wrappers in front; in a `sh -c` script, of the one such launcher
    its lists run. None when none, several, or a word with a variable names it."""
    script = shell_script_of(argv)
    if script is None:
        return _loaded_app([str(word) for word in argv])
    try:
        words = shell_words(script, comments=True)
    except ValueError:
        return None
    found: list[Entry] = []
    command: list[str] = []
    for word in [*words, ";"]:
        if word.endswith(";") and word != ";":
            command.append(word[:-1])
            word = ";"
        if word not in _SEPARATORS:
            command.append(word)
            continue
        entry = _loaded_app(command) if command else None
        if entry is not None and entry.module not in {e.module for e in found}:
            found.append(entry)
        command = []
    return found[0] if len(found) == 1 else None


def _loaded_app(words: list[str]) -> Entry | None:
    for number, word in enumerate(words):
        if "$" in word:
            return None
        name, start = posixpath.basename(word), number + 1
        if _PYTHON.match(name) and words[start : start + 1] == ["-m"]:
            name, start = (words[start + 1] if len(words) > start + 1 else ""), start + 2
        elif _PYTHON.match(name) or name in _NODE or name in _PACKAGE_MANAGERS:
            return None  # another program: what it runs is the entry's (entry_of)
        flags = _APP_LOADERS.get(name)
        if flags is None:
            continue  # the words after it are sliced only for a launcher: linear in them
        rest = words[start:]
        for at, option in enumerate(rest):
            flag, equals, value = option.partition("=")
            if equals and flag in flags:
                given = value
            elif option in flags and at + 1 < len(rest):
                given = rest[at + 1]
            else:
                continue
            module = given.partition(":")[0]
            if not _DOTTED.match(module):
                return None
            return Entry(None, module, " ".join(words[number:]))
        return None
    return None


def _app_server(words: list[str]) -> Entry | None:
    """`gunicorn -b :8000 app.wsgi:application`: the module of its `module:attribute`
    argument; gunicorn's app named right after it with no attribute (`gunicorn app.wsgi`,
    whose `application` it serves) too."""
    for argument in words[1:]:
        app = _APP.match(argument)
        if app is not None:
            return Entry(None, app.group(1), " ".join(words))
    first = words[1] if len(words) > 1 else ""
    if posixpath.basename(words[0]) == "gunicorn" and _DOTTED.match(first):
        return Entry(None, first, " ".join(words))
    return None


def python_app_server(words: Sequence[str]) -> list[str] | None:
    """The command line of an ASGI/WSGI server Python runs as a module (`python -m
    gunicorn app.wsgi` -> `gunicorn app.wsgi`): that server is the program, with its own
    signal handling; None for any other command line."""
    if not words or not _PYTHON.match(posixpath.basename(words[0])):
        return None
    rest = iter(enumerate(words[1:], start=1))
    for number, word in rest:
        if word == "-m":
            module = words[number + 1] if number + 1 < len(words) else ""
            return [module, *words[number + 2 :]] if module in _APP_SERVERS else None
        if word in _PYTHON_VALUE_OPTIONS:
            next(rest, None)
        elif not word.startswith("-"):
            return None
    return None


def inline_python(argv: Sequence[object]) -> str | None:
    """The program a `python [options] -c CODE` command line gives inline (Python runs the
    string, not a file: `python -u -c "import json; ..."`), past wrappers in front (`tini
    --`); None when the interpreter runs a script or a module, or no interpreter is run."""
    words = [str(word) for word in argv]
    at = next((n for n, w in enumerate(words) if _PYTHON.match(posixpath.basename(w))), None)
    if at is None or any("$" in word for word in words[:at]):
        return None
    rest = iter(words[at + 1 :])
    for word in rest:
        if word == "-c":
            return next(rest, None)
        if word.startswith("-c"):
            return word[2:]
        if word in _PYTHON_VALUE_OPTIONS:
            next(rest, None)
        elif not word.startswith("-") or word.startswith("-m"):
            return None  # a script, or a module (`-m`)
    return None


def _python_arguments(words: list[str]) -> Entry | None:
    """`python [options] (script | -m module)`: what the interpreter runs."""
    shown = " ".join(words)
    rest = iter(words[1:])
    for word in rest:
        if word == "-m":
            module = next(rest, None)
            if module in IN_PROCESS:  # `python -m flask --app main run`: the app it names
                return _app_option(words)
            if module in _PROGRAM_FLAGS:  # `python -m locust -f x.py`: the file it names
                return _flag_program(words, _PROGRAM_FLAGS[module])
            served = python_app_server(words)
            if served is not None:  # `python -m gunicorn app.wsgi`: the app it serves
                entry = _app_server(served)
                return replace(entry, words=shown) if entry is not None else None
            return Entry(None, module, shown) if module and "$" not in module else None
        if word.startswith("-m") and len(word) > 2:
            return Entry(None, word[2:], shown)
        if word in _PYTHON_VALUE_OPTIONS:
            if word == "-c":
                return None  # code on the command line: nothing to link
            next(rest, None)
            continue
        if word.startswith("-"):
            continue
        return Entry(word, None, shown) if "$" not in word else None
    return None


def _node_arguments(words: list[str]) -> Entry | None:
    """`node [options] script`: the module Node runs; `node .` (or a folder) the
    package's `main`."""
    shown = " ".join(words)
    rest = iter(words[1:])
    for word in rest:
        if word in _NODE_VALUE_OPTIONS:
            next(rest, None)
            continue
        if word in ("-e", "--eval", "-p", "--print"):
            return None  # code on the command line: nothing to link
        if word.startswith("-"):
            continue
        return Entry(word, None, shown, node=True)
    return None


def _app_option(words: list[str]) -> Entry | None:
    """`flask --app hello run`: the module `--app` names (`module:app`, `module:create()`
    or a path); None when it names none (Flask then looks for `FLASK_APP`, `app.py`,
    `wsgi.py`)."""
    shown = " ".join(words)
    for number, word in enumerate(words):
        given = word.partition("=")[2] if word.startswith("--app=") else None
        if word in ("--app", "-A") and number + 1 < len(words):
            given = words[number + 1]
        if given and "$" not in given:
            module = given.partition(":")[0]
            if module.endswith(".py"):
                return Entry(module, None, shown)
            return Entry(None, module, shown)
    return None


def _flag_program(words: list[str], flags: tuple[str, ...]) -> Entry | None:
    """A launcher's program named by one of its `flags` (`locust -f load.py`,
    `--locustfile=load.py`): a .py file or a path as a script, else a module; None when no
    flag names one, or it names several (`-f a.py,b.py`)."""
    for number, word in enumerate(words):
        flag, equals, value = word.partition("=")
        if equals and flag in flags:  # `--locustfile=load.py`
            given = value
        elif word in flags and number + 1 < len(words):
            given = words[number + 1]
        else:
            continue
        if not given or "$" in given or "," in given:
            return None
        shown = " ".join(words)
        if given.endswith(".py") or "/" in given:
            return Entry(given, None, shown)
        return Entry(None, given, shown)
    return None


# npm's, yarn's and pnpm's options naming the package's folder it runs the script of
_PACKAGE_FOLDER_FLAGS = frozenset({"--prefix", "--cwd", "--dir", "-C"})


def _package_run(words: list[str]) -> Entry | None:
    """`npm start`, `npm run NAME`, `yarn start`, `yarn NAME`, `pnpm start`: the script of
    package.json that runs (read where the link knows the package)."""
    arguments: list[str] = []
    folder = None
    rest = iter(words[1:])
    for word in rest:
        flag, equals, value = word.partition("=")
        if flag in _PACKAGE_FOLDER_FLAGS:  # `--prefix web`, `--cwd=web`: where it runs
            folder = value if equals else next(rest, "")
        elif not word.startswith("-"):
            arguments.append(word)
    if arguments[:1] == ["run"] or arguments[:1] == ["run-script"]:
        arguments = arguments[1:]
    if not arguments or (folder is not None and (not folder or "$" in folder)):
        return None
    return Entry(
        None,
        None,
        " ".join(words),
        package_script=arguments[0],
        node=True,
        package_folder=folder,
    )


def container_argv(
    command: Sequence[object] | None,
    args: Sequence[object] | None,
    entrypoint: Sequence[str] | None,
    cmd: Sequence[str] | None,
) -> list[object]:
    """What a container runs, as Kubernetes composes it: `command` replaces the image's
    ENTRYPOINT (and drops its CMD), `args` replaces its CMD."""
    if command:
        return [*command, *(args or [])]
    return [*(entrypoint or []), *(args if args else (cmd or []))]
