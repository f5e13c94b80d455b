"""The programs a container's command line may run in front of its server, and what each
does with the SIGTERM the kubelet sends PID 1: the one place k8slb names them, each with
why (`sigterm-never-reaches-server` reads them; `code/entry_points.py` looks through the
same ones for the code a container runs).

Three kinds:

- a **launcher** keeps the server as its child and does not pass SIGTERM on to it: as
  PID 1 the signal stops there (or the launcher exits on it, and the kernel then kills the
  server with SIGKILL, as it kills every process of the namespace when PID 1 ends); the
  package managers, which pass it on to the script (`passes_on`), leave the server stopped
  at once (yarn 1 and pnpm exit without waiting for it, so not even a handler drains it);
- a **prefix** replaces itself with the command that follows it (`exec`: `gosu`, `bundle
  exec`, `opentelemetry-instrument`, `ddtrace-run`, `newrelic-admin run-program`), so that
  command is PID 1 and is judged instead;
- an **in-process runner** is Python running the application in its own process, with no
  SIGTERM handler of its own: like `python app.py`, it is judged by the application's
  code (Python as PID 1 ignores a signal it has no handler for).

Not listed, on purpose: GNU `make` passes SIGTERM to the recipes it runs and waits for
them; Maven's `spring-boot:run` stops the application it forks (SIGTERM, from a shutdown
hook) and waits for it, and `exec:java` runs it in Maven's own JVM, whose shutdown hooks
run; `uv run` is no prefix (it does not exec on Unix: it runs the command as a child,
to clean up after it) but, since astral-sh/uv#8933 (November 2024), passes SIGTERM on to
that child and waits for it (every other signal since #13017), so the command gets the signal
as a program run in its place would, though not as PID 1 (with no handler it ends at
once rather than ignoring it); an older uv passed none on, and which uv an image holds
is not in its command line. What the Gradle client does with SIGTERM for a task its
daemon runs k8slb does not know well enough to report. A program not listed is never
reported: unknown is not a finding. In a shell's script (`sh -c "uv run migrate && uv
run python main.py"`) the shell as PID 1 keeps the signal from all of them, which KLB406
reports of the shell whatever it runs.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from k8slb.core import regex
from k8slb.core.record import record


@record
class Launcher:
    """A program that runs the server as its child: `program`, with `subcommand` as its
    first argument when it has one (`go run`), why SIGTERM stops at it, and what to run
    instead."""

    program: str
    subcommand: str | None
    why: str
    instead: str
    passes_on: bool = False  # it passes SIGTERM on to the script: the server stops at once
    # it waits for the script once it passed SIGTERM on (npm): a server whose own SIGTERM
    # handler closes it drains before the container ends
    waits: bool = False

    @property
    def name(self) -> str:
        return f"{self.program} {self.subcommand}" if self.subcommand else self.program


# What follows for the server when a launcher exits on SIGTERM without passing it on.
_KILLED = "the kernel then ends the server with SIGKILL, cutting what is in flight undrained"

# Node's package managers: `npm start`, `yarn NAME` run a script of package.json. npm
# passes SIGTERM to the script's shell (@npmcli/run-script's signal-manager; npm 6's
# npm-lifecycle, `process.once('SIGTERM', procKill)`): bash and BusyBox ash run a lone
# command in their own place, so the server gets it at once; Debian's dash dies of it, npm
# exits, and the kernel kills the server. Either way the server stops at once, drained only
# by a handler of its own, which exec form alone does not give it. yarn 1 and pnpm pass it
# on too but exit at once without waiting for the script (yarnpkg/yarn#4667 since #3789;
# pnpm/pnpm#2653, #9945): as PID 1 their exit ends the container, and the kernel kills the
# server whatever handler it has. yarn 2 and later wait for the script (yarnpkg/berry#2347),
# as npm does; which yarn a container runs is not in its command line, so both are said.
PACKAGE_MANAGERS = ("npm", "yarn", "pnpm")
_NPM_PASSES = (
    "passes SIGTERM to the shell that runs the script, and the server stops at once: it "
    "gets the signal where that shell runs it in its own place (bash, BusyBox ash), or is "
    "killed as the shell and npm exit (Debian's dash); with no SIGTERM handler of its own "
    "it dies mid-request, cutting what is in flight"
)
_EXITS_AT_ONCE = (
    "passes SIGTERM to the shell that runs the script but exits at once without waiting "
    "for it, and as PID 1 its exit ends the container: the kernel kills the server "
    "mid-request, cutting what is in flight whatever SIGTERM handler it has"
)
_YARN_LEAVES = (
    f"1 {_EXITS_AT_ONCE}; yarn 2 and later wait for the script, and then only a handler "
    "of the server's own drains it"
)
_PNPM_LEAVES = _EXITS_AT_ONCE
_HANDLE_AND_RUN_NODE = (
    "register a SIGTERM handler that stops the server gracefully "
    "(`process.on('SIGTERM', () => server.close())`) and run the server itself as PID 1 "
    '(CMD ["node", "server.js"]): exec form alone makes node PID 1 with no handler, which '
    "ignores SIGTERM until SIGKILL"
)

LAUNCHERS = (
    Launcher("npm", None, _NPM_PASSES, _HANDLE_AND_RUN_NODE, passes_on=True, waits=True),
    Launcher("yarn", None, _YARN_LEAVES, _HANDLE_AND_RUN_NODE, passes_on=True),
    Launcher("pnpm", None, _PNPM_LEAVES, _HANDLE_AND_RUN_NODE, passes_on=True),
    # cmd/go's `go run` builds a binary and runs it as a child; it relays no signal (it
    # ignores SIGINT and SIGQUIT, which a terminal sends the whole group) and, as PID 1,
    # exits on SIGTERM, which ends the server by SIGKILL.
    Launcher(
        "go",
        "run",
        "builds the program and runs it as a child, and passes no SIGTERM on: it exits on "
        f"it, and {_KILLED}",
        "build the program in the image (`go build -o /app/server`) and run that binary as PID 1",
    ),
    # A Rake task starts a server with `sh`, `system` or `ruby` (a child); Ruby's own
    # SIGTERM handler raises SignalException in Rake, which exits without passing it on.
    Launcher(
        "rake",
        None,
        "runs the task in Ruby and the server as a child the task starts (`sh`, `system`); "
        f"it exits on SIGTERM without passing it on, and {_KILLED}",
        "run the server itself as PID 1 (the command the task runs, in exec form)",
    ),
)

# Programs that replace themselves with the command after their own words (exec): how many
# words they take before it (`gosu USER cmd`), after `subcommand` when they have one.
PREFIXES: dict[tuple[str, str | None], int] = {
    ("bundle", "exec"): 0,  # Bundler execs the command, or loads a Ruby script in place
    ("poetry", "run"): 0,  # os.execvpe
    ("pipenv", "run"): 0,  # os.execve, on POSIX
    ("env", None): 0,  # execvp, after its VAR=value words and options
    ("gosu", None): 1,  # execs after dropping to USER
    ("su-exec", None): 1,
    # daemontools' `envdir DIR child`: sets the environment from DIR's files and execs child
    ("envdir", None): 1,
    # OpenTelemetry's Python auto-instrumentation: its `run()` sets PYTHONPATH for its
    # sitecustomize and ends with `execl(executable, executable, *args.command_args)`
    # (opentelemetry-instrumentation, auto_instrumentation/__init__.py)
    ("opentelemetry-instrument", None): 0,
    # Datadog's `ddtrace-run [-d] [-p] cmd`: puts its bootstrap on PYTHONPATH, then
    # `os.execl(executable, executable, *args.command[1:])` (ddtrace/commands/ddtrace_run.py)
    ("ddtrace-run", None): 0,
    # New Relic's `newrelic-admin run-program cmd`: sets its boot folder on PYTHONPATH, then
    # `os.execl(program_exe_path, *args)` (newrelic/admin/run_program.py)
    ("newrelic-admin", "run-program"): 0,
}
# Prefixes whose every option takes a value (`--traces_exporter console`, or `=console`):
# opentelemetry-instrument's are one `--NAME` per OTEL_ setting, each given a value.
_VALUED_OPTIONS = frozenset({"opentelemetry-instrument"})

# Python console scripts that run the application in their own process and install no
# SIGTERM handler: Flask's `flask run` (Werkzeug's development server; with `--reload` or
# `--debug` the reloader parent exits on SIGTERM and the server child is killed with it).
IN_PROCESS = {"flask": "run"}

# Django's development server: `manage.py runserver` (or `django-admin runserver`) runs
# under its autoreloader unless `--noreload` is given, and the reloader's
# `run_with_reloader` first sets `signal.signal(signal.SIGTERM, lambda *args:
# sys.exit(0))` (django/utils/autoreload.py): PID 1 exits at once, and the server, its
# child, is killed with it, as under werkzeug's reloader. With `--noreload` the command
# runs the server in its own thread (runserver's `inner_run`) with no handler at all.
_DJANGO_COMMANDS = ("manage.py", "django-admin", "django-admin.py")
DJANGO_RUNSERVER = "runserver"
DJANGO_NO_RELOAD = "--noreload"


def django_reloader(words: Sequence[str]) -> bool:
    """Whether the command line runs Django's `runserver` under its autoreloader (no
    `--noreload`): a SIGTERM handler that exits at once is installed."""
    names = [posixpath.basename(w) for w in words[:3]]
    return (
        any(name in _DJANGO_COMMANDS for name in names)
        and DJANGO_RUNSERVER in words
        and DJANGO_NO_RELOAD not in words
    )


_ASSIGNMENT = regex.compile(r"^[A-Za-z_]\w*=")
_PYTHON = regex.compile(r"^python(?:\d+(?:\.\d+)?)?$")


def launcher(words: Sequence[str]) -> Launcher | None:
    """The launcher a command line starts with, if it is one."""
    if not words:
        return None
    program = posixpath.basename(words[0])
    for known in LAUNCHERS:
        if known.program == program and (
            known.subcommand is None or words[1:2] == [known.subcommand]
        ):
            return known
    return None


def after_prefix(words: Sequence[str]) -> list[str] | None:
    """The command a prefix runs in its own place (`bundle exec rake` -> `rake`), or None
    when the command line starts with no prefix."""
    if not words:
        return None
    program = posixpath.basename(words[0])
    for (name, subcommand), taken in PREFIXES.items():
        if name != program or (subcommand is not None and words[1:2] != [subcommand]):
            continue
        rest = list(words[1 if subcommand is None else 2 :])
        while rest and (rest[0].startswith("-") or (name == "env" and _ASSIGNMENT.match(rest[0]))):
            option = rest.pop(0)  # its options, and env's VAR=value words
            if name in _VALUED_OPTIONS and "=" not in option and rest:
                rest.pop(0)  # the option's value
        return rest[taken:]
    return None


# How many prefixes in a row are looked through (`env A=1 envdir /env gosu app prog`)
MAX_PREFIXES = 4


def past_prefixes(words: Sequence[str]) -> list[str]:
    """The command line once every prefix in front is looked through (`envdir /env
    /bin/api -v` -> `/bin/api -v`), MAX_PREFIXES deep at most; the words as given when
    none is."""
    rest = list(words)
    for _ in range(MAX_PREFIXES):
        handed = after_prefix(rest)
        if handed is None:
            break
        rest = handed
    return rest


def in_process(words: Sequence[str]) -> str | None:
    """The in-process runner a command line starts with (`flask run`, `python -m flask
    run`), by its name; None for any other."""
    if not words:
        return None
    program = posixpath.basename(words[0])
    arguments = [w for w in words[1:] if not w.startswith("-")]
    if program in IN_PROCESS:
        return program if IN_PROCESS[program] in arguments else None
    if _PYTHON.match(program) and "-m" in words:
        module = words[words.index("-m") + 1 :][:1]
        if module and module[0] in IN_PROCESS and IN_PROCESS[module[0]] in arguments:
            return module[0]
    return None
