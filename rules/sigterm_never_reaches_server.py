from __future__ import annotations

import json
import os
import posixpath
import shlex
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from k8slb.code.entry_points import container_argv, entry_of, python_app_server
from k8slb.code.facts import CodeFacts, Loc
from k8slb.code.launchers import (
    Launcher,
    after_prefix,
    django_reloader,
    in_process,
    launcher,
    past_prefixes,
)
from k8slb.code.reach import reached_signal
from k8slb.core import regex
from k8slb.core.edits import Edit, LineEdit, YamlEdit
from k8slb.core.findings import Finding, FixInfo, Related, Severity
from k8slb.core.record import record
from k8slb.languages import LANGUAGES
from k8slb.languages.python.parse_calls import MAIN, MODULE
from k8slb.model.entries import Entries, built_source, compiled_source, entries_of, within
from k8slb.model.links import MAX_BASE_DEPTH, STRENGTH, Link
from k8slb.model.objects import STOP_SIGNALS, Container, PodTemplate, pos_of
from k8slb.model.scripts import image_script, tail_scripts, tree_scripts
from k8slb.model.shells import ASH, BASH, DASH, dockerfile_sh, image_sh
from k8slb.model.unlike_pods import only_unlike
from k8slb.reading.build_files import (
    DOCKERFILE_NAMES,
    OUTPUT_FOLDERS,
    Dockerfile,
    Said,
    ShellScript,
)
from k8slb.reading.objects import K8sObject
from k8slb.rulekit.base import Context, Example, Rule
from k8slb.rulekit.examples import web_deployment

_SHELLS = frozenset({"sh", "bash", "ash", "dash", "zsh", "ksh"})
# Init processes made to be PID 1: they pass SIGTERM on and reap what exits.
_INITS = frozenset({"tini", "tini-static", "dumb-init", "catatonit", "docker-init"})
_NODE = frozenset({"node", "nodejs"})
_RUNTIMES = regex.compile(r"^(?:node|nodejs|python(?:\d+(?:\.\d+)?)?)$")
# Words that make a command line a shell program rather than one command.
_OPERATORS = frozenset({"&&", "||", ";", "|", "&", ";;", "(", ")", "|&"})
_REDIRECTS = regex.compile(r"^\d*(?:<|>|>>|<<|<&|>&|&>|<>)")
_KEYWORDS = frozenset(
    {"if", "then", "else", "fi", "for", "while", "until", "do", "done", "case", "esac", "{", "}"}
)
# What /bin/sh expands or interprets in a word: a shell-form line that has none of them
# means the same as its exec form.
_SHELL_CHARACTERS = regex.compile(r"[$`*?\[\]{}~\\<>|&;()#!]|^\w+=")


@record
class Pid1:
    """What runs as PID 1, when SIGTERM does not reach the server through it (or when the
    server itself is PID 1: `runtime`, judged against its code)."""

    kind: str  # shell | launcher | runtime
    program: str  # its name, as the command line gives it (`go run` for a launcher)
    words: tuple[str, ...]  # the command line from PID 1 on
    exec_prefix: bool = False  # one command in `sh -c`: `exec` in front of it is the fix
    severity: Severity | None = None  # lowered, with `why`
    why: str = ""
    last: tuple[str, ...] = ()  # a shell's: the program its script runs last
    launcher: Launcher | None = None  # a launcher's: why it keeps SIGTERM from its child
    script: str = ""  # a shell's: the script file it runs, when PID 1 is one (its name)
    # a script's: the command it runs last, through the functions it calls (`serve` whose
    # body ends with `python server.py`), for the fix's words
    runs_last: tuple[str, ...] = ()
    image_shell: str = ""  # a `sh`'s: which shell the image's base says /bin/sh is
    idle: str = ""  # a shell's lone command that only waits (`sleep`), deaf to SIGTERM too
    # an init's (kind `init`): the shell of the script it runs as its child, which starts
    # `last` in the background
    child_shell: str = ""
    # the hops that led to it through the tree's scripts (`run.sh is docker/run.sh`,
    # `docker/run.sh:4 execs ./start.sh`), for the message
    via: tuple[str, ...] = ()
    # a script's: the program it runs with `exec` in a pipeline (`exec java ... | tee log`),
    # where exec replaces only the pipeline's subshell, the shell staying on above it
    piped: tuple[str, ...] = ()


# What a shell or a script hands PID 1 to (its words) when pid1 knows no such program:
# a script of the tree, read where the rule can find it (None: not one)
Resolve = Callable[[Sequence[str]], "Pid1 | None"]


def pid1(
    argv: Sequence[object], sh: str | None = None, resolve: Resolve | None = None
) -> Pid1 | None:
    """What a container's command line leaves as PID 1, when that keeps SIGTERM from the
    server (a shell, a launcher: code/launchers.py) or the server is a Node or Python
    process; None when an init process, a program k8slb does not know, or a shell that
    hands over with `exec` runs it. A prefix that execs (`bundle exec`) is looked through.
    `sh` is which shell `/bin/sh` is in the image (model/shells.py), when its base says.
    `resolve` reads what a shell hands PID 1 to when it is no program k8slb knows (a
    script of the tree)."""
    words = [str(word) for word in argv]
    handed = after_prefix(words)
    if handed is not None:
        return pid1(handed, sh) if handed else None
    if not words:
        return None
    program = posixpath.basename(words[0])
    if program in _INITS:
        return None
    if program in _SHELLS and len(words) >= 3 and _COMMAND_OPTION.fullmatch(words[1]):
        return _shell(program, words[2], sh, resolve)
    served = python_app_server(words)
    if served is not None:  # `python -m gunicorn app.wsgi`: gunicorn is PID 1, as run alone
        return pid1(served, sh)
    known = launcher(words)
    if known is not None:
        return Pid1("launcher", known.name, tuple(words), launcher=known)
    if _RUNTIMES.match(program) or in_process(words):
        return Pid1("runtime", program, tuple(words))
    return None


@record
class Command:
    """A simple command of a shell script, with the operators around it."""

    words: tuple[str, ...]
    before: str | None  # the operator that ends the command before it
    after: str | None  # the operator that ends it


def _commands(script: str) -> list[Command] | None:
    """The simple commands of a shell script, split at its operators (a line break ends
    a command as `;` does); None when it does not parse."""
    lexer = shlex.shlex(script.replace("\n", " ; "), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return None
    return _grouped(tokens)


def _grouped(tokens: Sequence[str]) -> list[Command]:
    """Words and operators as the simple commands they make."""
    commands: list[Command] = []
    words: list[str] = []
    before: str | None = None
    for token in [*tokens, None]:
        if token is not None and token not in _OPERATORS:
            words.append(token)
            continue
        if words:
            commands.append(Command(tuple(words), before, token))
            before, words = token, []
        elif token is not None and token != ";":
            before = token
    return commands


# sh -c, bash -ec, bash -ecx (the letters in any order; not `-o`, whose value comes next)
_COMMAND_OPTION = regex.compile(r"-[a-np-z]*c[a-np-z]*")
_ASSIGNMENT = regex.compile(r"^[A-Za-z_]\w*=")
# Builtins a script may end with: no program to run in the shell's place.
_BUILTINS = frozenset(
    {"wait", "read", "cd", ":", "true", "false", "exit", "set", "eval", ".", "echo", "printf"}
)


def _program_words(words: Sequence[str]) -> list[str]:
    """A simple command from its program on: the keywords that open it (`then`, `do`)
    and the variables it sets for the program (`OPTS=... exec java`) left out."""
    start = 0
    while start < len(words) and (
        words[start] in _KEYWORDS or words[start] == "!" or _ASSIGNMENT.match(words[start])
    ):
        start += 1
    return list(words[start:])


_PIPES = ("|", "|&")


def _replaces_shell(command: Command) -> bool:
    """Whether `exec` in front of the command replaces the shell that runs the script: not
    in a pipeline (each of its commands runs in a subshell, which exec replaces, as POSIX
    says of a pipeline's commands, bash and dash alike), nor left in the background or in
    a `( ... )` subshell."""
    return command.before not in (*_PIPES, "(") and command.after not in (*_PIPES, "&")


def _may_hand_over(last: Command) -> bool:
    """Whether a shell may run the script's last command in its own place, as bash does
    (and dash does not): a program run in the foreground, not in a pipeline or a compound
    command, with no redirection and nothing after it."""
    if last.before in ("|", "|&", "(") or last.after not in (None, ";"):
        return False
    if any(_REDIRECTS.match(word) or word in _KEYWORDS for word in last.words):
        return False
    program = _program_words(last.words)
    return bool(program) and program[0] not in _BUILTINS


def _handed(words: Sequence[str], sh: str | None, resolve: Resolve | None) -> Pid1 | None:
    """What a shell or script hands PID 1 over to: a program k8slb knows, else what
    `resolve` finds of it (a script of the tree)."""
    found = pid1(words, sh, resolve)
    if found is None and resolve is not None and words:
        return resolve(words)
    return found


def _shell(
    program: str, script: str, sh: str | None = None, resolve: Resolve | None = None
) -> Pid1 | None:
    commands = _commands(script)
    if not commands:
        return None
    for command in commands:
        words = _program_words(command.words)
        if words[:1] == ["trap"]:
            return None  # the script handles the signal itself (a trap that forwards it)
        if words[:1] == ["exec"] and _replaces_shell(command):
            handed = [w for w in words[1:] if not _REDIRECTS.match(w)]
            if handed:  # the shell becomes that program
                return _handed(handed, sh, resolve)
    last = commands[-1]
    # a command left in the background runs beside the shell, whatever ends the script
    may = _may_hand_over(last) and not any(c.after in ("&", "|&") for c in commands)
    lone = may and len(commands) == 1 and not _ASSIGNMENT.match(last.words[0])
    # which shell it is: the one named, or the one the image's base makes /bin/sh
    image_shell = sh if program == "sh" and sh is not None else ""
    shell = image_shell or program
    if may and len(commands) == 1 and shell == BASH:
        # bash runs a lone command in its own place, with the variables set before it in
        # its environment (`bash -c 'MODE=x ./run.sh'`: checked, bash 5.2, `-ecx` too)
        return _handed(_program_words(last.words), sh, resolve)
    if may and shell == ASH:
        # BusyBox ash runs the last one so
        return _handed(_program_words(last.words), sh, resolve)
    line = (program, "-c", script)
    ran = tuple(_program_words(last.words)) if may else ()
    if not may or shell == DASH:
        return Pid1("shell", program, line, exec_prefix=lone, last=ran, image_shell=image_shell)
    if shell == BASH:
        why = (
            "bash 5.1 and later run the last command of a script in their own place, older "
            "bash does not"
        )
        if image_shell:
            why = f"/bin/sh is bash in the image's distribution, and {why}"
    else:
        why = (
            f"whether {program} runs {'the' if lone else 'the last'} command in its own place "
            "depends on which shell it is in the image: bash does"
            + ("" if lone else " (5.1 and later)")
            + ", dash (Debian's and Ubuntu's /bin/sh) does not"
        )
    return Pid1(
        "shell",
        program,
        line,
        exec_prefix=lone,
        severity=Severity.INFO,
        why=why,
        last=ran,
        image_shell=image_shell,
    )


@record
class Place:
    """Where the words that make PID 1 are written, and the edit that hands PID 1 over."""

    path: str
    line: int
    column: int
    said: str
    edits: tuple[Edit, ...] = ()
    fix: str = ""
    workload: K8sObject | None = None  # the manifest's, when they are written there
    # a Dockerfile's FROM line whose base, built in the repository, sets them: what it
    # inherits, said, and the base's line (path:line)
    inherited: str = ""
    base: str = ""


class SigtermNeverReachesServer(Rule):
    """The server's container runs it under a PID 1 that keeps SIGTERM from it.

    ## What it does
    Works out what runs as PID 1 in each long-running container of a workload that
    serves (a Deployment, StatefulSet, DaemonSet; not a Job): the container's `command`
    and `args`, over the ENTRYPOINT and CMD of the Dockerfile its image is built from
    (`k8slb explain-links`), composed as Kubernetes does. The image is the stage its builds
    target (`docker build --target runtime`, build-push-action's or compose's `target:`,
    skaffold's `docker.target`, Tilt's `target=`) when each build of it names one and the
    stages named run the same ENTRYPOINT and CMD (a `test` stage FROM the runtime adding
    packages); the last stage when no build names one, or when they disagree. It reports:

    - a shell as PID 1: a shell-form `CMD` or `ENTRYPOINT` (`CMD python app.py`, which
      Docker runs as `/bin/sh -c "python app.py"`), or `["sh", "-c", "..."]` in the
      manifest or the Dockerfile, when no command of the script is run with `exec`;
    - an init as PID 1 that passes SIGTERM to its child alone (tini, docker-init and
      catatonit without `-g`, dumb-init with `--single-child`) whose child is a shell
      script of the tree that starts a program in the background with no `trap` and no
      `exec` that hands over (`exec "$@"` with no arguments runs nothing), or runs it with
      `exec` in a pipeline (`exec java ... | tee -a log`: each command of a pipeline runs
      in a subshell, which is all exec replaces): the shell ends on SIGTERM, the init exits
      with it, and the server is killed with the container, never told to stop. A child
      `bash -c` of one command (BusyBox ash's too) is looked through to that command, which
      bash runs in its own place (`tini -- bash -c "/opt/acme/bin/server.sh start"`). A
      script k8slb cannot read, or with nothing in the background, is not reported;
    - a launcher as PID 1, a program that keeps the server as its child and does not
      pass SIGTERM on: `go run` (it runs the
      binary it builds as a child, and exits on SIGTERM), `rake TASK` (the task starts
      the server with `sh` or `system`; Rake exits on SIGTERM). The list, with why each
      one is on it and why `make` and Maven are not, is `code/launchers.py`. A launcher
      that a shell runs last is reported as certain, whichever shell it is: handed PID 1
      or not, the launcher stays between the signal and the server, so `exec` is no fix;
    - npm as PID 1 (`npm start`, `npm run NAME`): npm passes SIGTERM to the script's shell,
      so the server is not left running until SIGKILL but stops at once: it gets the
      signal where that shell runs it in its own place, or is killed as the shell (dash)
      and npm exit. With no SIGTERM handler of its own it dies mid-request; the finding
      says so, and that the fix is a handler (exec form alone makes node PID 1 with no
      handler, which ignores SIGTERM). npm waits for the script, so where the code the
      container runs has a SIGTERM handler that closes the server its module listens with
      (`server.close()` after `server.listen()` or `const server = app.listen()`), the
      server drains and nothing is reported; a handler that closes something else (a
      queue's client) leaves it reported. `yarn` and `pnpm` pass it on too but exit at once
      without waiting for the script; as PID 1 their exit ends the container and the
      kernel kills the server, whatever handler it has (yarn 2 and later wait, as npm
      does). Under a shell that runs the package manager as its child, it never gets the
      signal at all;
    - a prefix that replaces itself with the command after it (`bundle exec`, `poetry
      run`, `pipenv run`, `env VAR=value`, `gosu USER`, `su-exec USER`, daemontools'
      `envdir DIR`, OpenTelemetry's `opentelemetry-instrument` with its options,
      Datadog's `ddtrace-run`, New Relic's `newrelic-admin run-program`) is looked
      through: `bundle exec rake serve` is Rake as PID 1, `bundle exec puma` is Puma,
      which k8slb does not report;
    - Node.js or Python as PID 1 (`node server.js`, `python app.py`; a Python project's
      console script, `acme-api` that setup.py's `entry_points`, setup.cfg or
      pyproject.toml declares, whose module the container's link runs: pip installs it as
      a Python script, so Python is PID 1) when no module of the
      code the container runs (its import closure, or its Node program; for compiled
      output, `node dist/apps/auth/main`, the program of the source it is built from,
      `apps/auth/src/main.ts`; also where the file comes from a build stage, `COPY
      --from=build /app/dist .` then `node index.js`, and the package.json above it has a
      bundler write it from one entry, `esbuild src/server.ts --outfile=dist/index.js`
      (`--outdir`, `bun build`, `ncc build -o`), or an Nx project.json's build target
      writes it (`options.main` bundled into `options.outputPath`, from the workspace's
      top: `node dist/apps/web` is the program of `apps/web/src/main.ts`), or it lies in
      the package's `dist/` as tsc lays out `src/`; else the linked code when it is one
      Node program (`info` then, saying why: the file node runs is build output made
      from no module k8slb can name, `dist/bundle.js` or a framework's
      `.output/server/index.mjs`, and what the framework writes into it at build time, a
      server and its SIGTERM handler, is not in the code read), each with
      the workspace's programs above it, whose libraries it may import, less the entry
      modules that other containers of the same code start; under a link by the
      image's name alone, only when PID 1 is the Dockerfile's) registers a
      SIGTERM handler (`process.on('SIGTERM')`, a shutdown library, NestJS's
      `enableShutdownHooks()`; `signal.signal`, `loop.add_signal_handler`) or starts a
      server that installs one (`uvicorn.run`, and `run()`, `serve()`, `capture_signals()`
      or `install_signal_handlers()` of a `uvicorn.Server` the code makes, takes as an
      annotated parameter, or gets from a function annotated to return one: each installs
      uvicorn's SIGINT and SIGTERM handlers, which stop the server gracefully, where
      `startup()` alone does not; hypercorn's asyncio `serve()` with no `shutdown_trigger`;
      `run()` of a gunicorn application, a `BaseApplication` subclass, whose arbiter shuts
      down gracefully on TERM; aiohttp's `web.run_app`; Apollo Server's
      `ApolloServer`, whose handler stops it once started, unless a serverless integration
      makes it or its options, read whole, set `stopOnTerminationSignals: false` or
      `nodeEnv: 'test'`; werkzeug's reloader:
      Flask's `app.run(debug=True)` or `use_reloader=True`, whose handler exits at once;
      Django's `manage.py runserver`, whose autoreloader sets one that exits at once, unless
      `--noreload` runs the server with none). Python that a script of the tree hands PID 1
      to (`exec python manage.py runserver` as its last line) is judged by the module its
      words name, when the linked code holds one by that path. Python's handler may also
      be a helper's of another project of the tree (a workspace's shared package,
      `acme_utils.run.run_until_exit()`, whose folder the import closure does not reach)
      that the program calls: from the function its console script names (else its own
      code and `__main__` block), each call of a function of the module or of one it
      imports is followed (a module the reader does not parse is taken to call what it
      imports by name; an import of a package is looked up in the one project of the tree
      whose outermost package bears that name), and a handler, or a server above, in a
      function reached counts; a helper module the program imports for another function
      (one that starts a metrics server only) lends it none.
      The `server.js` of Next.js's standalone output (copied from `.next/standalone/`) is
      not reported: `next build` writes SIGTERM and SIGINT handlers into it (they exit at
      once) unless NEXT_MANUAL_SIG_HANDLE is set, which the container's `env` or an ENV
      line then says.
      `flask run` (or `python -m flask run`) is Python running the application in its own
      process: the module its `--app` names, else, as Flask finds it by `FLASK_APP` or
      `app.py`, the code of the folder the image is built from; an ASGI/WSGI server run as
      a module (`python -m gunicorn app.wsgi`, `python -m uvicorn`) is that server as PID
      1, as it is run by name, with its own handler. A gRPC server the code starts and
      waits on is `grpc-no-graceful-shutdown`'s to report, not this rule's (a wait in a
      module that starts none, an asyncio loop's `run_forever()` in a worker thread, is
      no server's);
    - a shell script of the tree as PID 1 (the ENTRYPOINT, CMD or `command` names a file
      that a COPY or ADD of the Dockerfile put there, a path or a name in a PATH folder, or
      a shell is run on it: `sh docker-entrypoint.sh`, by the shell named): its shell
      runs each command as a child, the last one too (a script file is never handed over
      as `sh -c` may be), unless one is run with `exec` (not in a pipeline, in the
      background or in a `( ... )` subshell, where exec replaces only the subshell: `exec
      java ... | tee log` leaves the shell PID 1, in a script as in `sh -c`); the fix names
      the command it runs
      last, followed into the script's own functions it calls (`serve() { ...; python
      server.py; }` called last: `exec python server.py`). A container judged by its
      manifest alone whose shell runs a script file is judged by the tree's scripts of
      that path, when every one of them leaves the shell PID 1. A script that ends with
      `exec "$@"` hands PID 1 to its arguments: an entry point's CMD is judged as if it
      were PID 1 (a shell-form `CMD java -jar app.jar` makes `/bin/sh -c` PID 1 again), and
      reported at the CMD's line. A shell-form line that runs such a script (`CMD
      ./run.sh`) is reported as certain, with no fix: `exec` in front of the script leaves
      the script's shell in between, so its last command needs `exec` too. The lines of a
      heredoc (`cat > conf <<EOF` to `EOF`) are read as its command's input, not as
      commands; a script with a heredoc that never ends is not judged. A COPY that put the
      script there is looked for through the stages the last one is built FROM, and through
      a stage a build argument chooses (`FROM build-${TARGETARCH}`): what every stage it
      may name copied; and a script the last stage takes from another (`COPY
      --from=builder /app/run.sh .`, by the stage's name or index) is the file of the tree
      that stage copied, by its name or the name it was copied to, through four stages at
      most;
    - a script of the tree that a shell or a script hands PID 1 over to, followed through
      three scripts at most (each read within 64 KiB): `bash -c` with one command (bash
      runs it in its own place, with the variables set before it: `bash -ecx 'MODE=fg
      /opt/acme/sbin/daemon.sh start'`, checked on bash 5.2), BusyBox ash's last command,
      and `exec ./start.sh` in a script. The script is where a COPY of the image's
      Dockerfile put it; with no Dockerfile known, the one script of the tree whose path
      ends with the command's (or with the longest tail of an absolute one, its file name
      and at least the folder around it: `/opt/acme/sbin/daemon.sh` is the tree's
      `dist/package/sbin/daemon.sh` when no other script's path ends so), in the linked
      folder unless the link rests on names alone. Two scripts that fit, a path built from
      variables, or a hop past the third leave nothing reported. The message names each
      hop (`entrypoint.sh:4 execs /srv/app/start.sh`).

    An init process as PID 1 (`tini`, `dumb-init`, `catatonit`), a shell script with a
    `trap`, and a pod with `shareProcessNamespace: true` (the pause container is PID 1)
    are not reported. A script that waits last (`tail -F logs/app.log`, `sleep
    infinity`) after starting the server, in the background or through another script
    (`sh bin/startup.sh`, which runs `nohup java ... &`), is reported with no `exec` as its
    fix: tail and sleep ignore SIGTERM as PID 1 too. Nor is a container whose preStop hook
    sends the server a stop signal itself (SIGTERM, SIGINT or SIGQUIT to a program its
    command line runs: `sleep 5 && kill -TERM $(pidof app)`, `pkill app`, or to every
    process with `kill -TERM -1`): the server hears it from the hook, after the pause, and
    the harm below does not happen. A
    hook that signals PID 1 (`kill 1`), or a server that is PID 1 itself, does not count:
    PID 1 drops that signal as it drops the kubelet's. `bash -c` with one command is not
    reported either: bash runs a lone command in its own place. Nor is a task that runs
    once: a shell script made only of commands that end by themselves (`echo`, `exit`,
    `chown`, `mkdir`, `cp`, a test, a pipeline into `head`), with no `while` or `until`
    loop and nothing in the background, exits on its own (a `sleep`, a server or a loop
    under the shell keeps the finding); and a bare Pod whose `restartPolicy` is `Never` or
    `OnFailure` runs its containers to completion, unless a container opens a port or has
    a probe (then it serves), or its shell visibly runs on (a `while` or `until` loop,
    `sleep`, `tail`): those are judged. A container whose image
    k8slb cannot link to a Dockerfile is judged by its manifest alone. One linked to no
    code whose image a build file of the tree makes (a script's, Makefile's, workflow's,
    compose's or skaffold's build of a folder that holds the Dockerfile and its scripts,
    the program coming from a release archive: `ADD target/app-${VERSION}-bin.tar.gz
    /opt/app`) is judged by that Dockerfile's ENTRYPOINT and CMD and the scripts its COPY
    lines take from the build's context; then only a shell or an init as PID 1 is
    reported, which needs no code (whether Node, Python or npm has a handler is in code no
    link names). A Dockerfile found by a name alike alone, or a document's build, is not
    read so. An image that sets
    no ENTRYPOINT or CMD of its own runs its base image's: when the repository builds that
    base (a build that links containers names the image, and all such builds are of one
    Dockerfile), its ENTRYPOINT and CMD, and the distribution it says, are read there, as
    Docker passes them on (an ENTRYPOINT of the image's own drops the base's CMD), through
    four bases at most, never one twice; the finding is on the image's FROM line, naming
    the base's line, where the fix is made. A base image from elsewhere is not seen.

    Whether a shell stays PID 1 can depend on which shell it is. When the script ends
    with a program run in the foreground (no pipe, redirection, background job or loop,
    nothing after it), bash runs that program in its own place (a lone command always,
    the last of several from 5.1 on), BusyBox ash runs the last command so, while dash,
    Debian's and Ubuntu's `/bin/sh`, runs none so (dash 0.5.12 of Debian 12, checked:
    `sh -c 'sleep 2'` leaves sleep a child of sh). Which shell `/bin/sh` is, the
    distribution of the image's base says (the Dockerfile's last stage, through the stages
    it is built FROM and its ARG defaults, else the container's image; the Dockerfile
    the image's builds name is read even where no code is linked to the container, as for
    a Dockerfile shared by services whose build argument no build gives), strongest first:
    the base's name or a tag word that names a distribution or its release; else the
    package manager the last stage's RUN lines call (`apt-get` or `dpkg` exist only on
    Debian and Ubuntu, `apk` on Alpine, `yum`, `dnf`, `microdnf` or `zypper` on the RPM
    distributions; the build ran them, so the image has them); else a `slim` tag word,
    Debian's name for its trimmed images, which the language images built on them keep
    (`python:3.12-slim`, `openjdk:11-jre-slim`). So BusyBox ash on Alpine
    (`openjdk:17-alpine`, or a stage that runs `apk add`): the program is PID 1 and judged
    as such; bash on the Red Hat family (CentOS, RHEL's UBI, Fedora, Rocky, Alma, Oracle
    Linux) and Amazon Linux; dash on Debian and Ubuntu (`debian:bookworm-slim`,
    `python:3.12-bookworm`, `python:3.12-slim`, `node:18` with `RUN apt-get install`): the
    shell stays PID 1, as certain, and a container that serves through a Service gets a
    warning. A base that says none of these (`node:18` alone, an image of the project's
    own registry) leaves the shell unknown, and k8slb guesses no distribution from a
    product's name: the official images' version tags are Debian for most languages but
    not all (`openjdk` from 12 on is Oracle Linux, `amazoncorretto` Amazon Linux, both
    bash). One maker's documented default is read: Eclipse Temurin's images, and the
    official images' `temurin` variants (`tomcat:10-jdk17-temurin`), are Ubuntu unless the
    tag names another distribution. Where the shell stays unknown, such a script under
    `sh` (a shell-form line among them) is `info`, saying why, with the `exec` that makes
    it certain as its fix. A script that no shell
    can hand over (`python app.py | tee
    log`, `python app.py > log`, `worker & server`, a loop, a command after the server),
    or any script under `dash`, is reported as it is, and so is one whose last program is
    Node.js or Python with no SIGTERM handler in its code: handed over or not, nothing
    handles the signal.

    The rest is a warning for a container that serves clients through a Service (see
    `no-readiness-probe`): their requests are what is cut. For any other container it is
    `info`, saying so: nothing is cut but its own work, though each stop still waits out
    the grace period; and so it is for one that only Services over unlike pods (pods of
    different programs, see `no-readiness-probe`) send traffic, whose port they all
    share is no app's clients'.

    ## Why it matters
    The kubelet stops a container by sending SIGTERM to its PID 1, and SIGKILL when the
    grace period is over. The kernel gives PID 1 no default action for a signal: a
    signal it has no handler for is dropped. `/bin/sh` (dash in Debian and Ubuntu images)
    installs no handler and does not pass the signal to its child; Node.js and Python
    install none for SIGTERM. So the server never hears SIGTERM: it keeps running until
    SIGKILL at the end of the whole grace period (30 s by default), every request in
    flight is cut, and every rollout and scale-down waits out the grace period for each
    pod. npm passes the signal on, and the server stops at once: what is in flight is cut
    unless it has a handler. yarn 1 and pnpm pass it on and exit without waiting, and the
    container ends with them: what is in flight is cut even with a handler.

    ## Fix
    Make the server PID 1, or put an init process there:
    - a shell-form line with one command and nothing for the shell to expand becomes
      the exec form (`CMD python app.py` -> `CMD ["python", "app.py"]`), a shell-form line
      with one command that needs the shell gets `exec` in front (`CMD exec python
      app.py --port $PORT`), and `sh -c "python app.py"` becomes `sh -c "exec python
      app.py"`: `k8slb fix` makes these (safe: the same program runs, as PID 1);
    - for a script of several commands, `exec` in front of the last one, the server
      (`cd /app && exec python app.py`), or an init: `ENTRYPOINT ["tini", "--"]`;
    - for a shell whose one command only waits (`sh -c 'sleep 365d'`, `tail -f
      /dev/null`, a toolbox pod), no `exec`: sleep and tail ignore SIGTERM as PID 1 just as
      the shell does; end the wait on the signal (`trap 'exit 0' TERM; sleep 365d & wait`)
      or put an init in front;
    - for a launcher, run the server itself: the binary `go build` makes in the image
      for `go run`, the command the Rake task runs for `rake`; for a package manager,
      `CMD ["node", "server.js"]` and a SIGTERM handler in the server as well (node as
      PID 1 with no handler ignores SIGTERM);
    - for Node.js and Python, a SIGTERM handler that stops the server gracefully
      (`process.on('SIGTERM', () => server.close())`,
      `signal.signal(signal.SIGTERM, ...)`), or `tini` in front.
    A shell-form `ENTRYPOINT` is not rewritten when a `CMD` or the container's `args` would
    then be passed to it (the exec form takes them as arguments, the shell form drops them).

    ## Other linters
    hadolint DL3025 asks for the exec form of `CMD` and `ENTRYPOINT` in every Dockerfile,
    whether or not a pod runs it; none looks at a pod's `command`, a launcher as PID 1,
    or the server's code.
    """

    id = "KLB406"
    name = "sigterm-never-reaches-server"
    severity = Severity.WARNING
    fix = FixInfo(
        available=True,
        safe=True,
        description="make the server PID 1 (exec form, or `exec` in front)",
    )
    examples = (
        Example(
            web_deployment("command: [sh, -c, 'python /app/app.py | tee /tmp/log']"),
            title="a pipeline: the shell stays PID 1",
            at=(19, 20),
        ),
        Example(
            web_deployment("command: [sh, -c, 'python /app/app.py']"),
            severity=Severity.INFO,
            title="one command under sh: whether sh hands over depends on the image's shell",
            at=(19, 20),
        ),
        Example(
            web_deployment("command: [sh, -c, 'exec python /app/app.py']"),
            findings=0,
            title="the shell hands PID 1 over with exec",
        ),
        Example(
            web_deployment("command: [tini, --, sh, -c, 'cd /app && npm start']"),
            findings=0,
            title="an init process is PID 1",
        ),
        Example(
            web_deployment("command: [npm, start]"),
            title="npm as PID 1",
            at=(19, 20),
        ),
        Example(
            web_deployment(),
            beside=(
                (
                    "skaffold.yaml",
                    "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n",
                ),
                ("Dockerfile", "FROM python:3.12-slim\nCOPY . /app\nCMD python /app/app.py\n"),
                ("app.py", "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"),
            ),
            title="a shell-form CMD in the Dockerfile the image is built from: /bin/sh is "
            "dash on a Debian slim base",
            at=(3, 1),
        ),
    )

    def check(self, context: Context) -> Iterator[Finding]:
        reported: set[tuple[str, int]] = set()  # a Dockerfile line, once for its images
        # a finding is placed in a Dockerfile or in the workload's manifest: with a
        # Dockerfile among the files judged, every workload may run it
        judged = context.judged
        every = judged is None or any(
            DOCKERFILE_NAMES.search(os.path.basename(path)) for path in judged
        )
        # where exactly the judged files are reported, a workload not judged is judged only
        # for a container whose finding may be placed in one of them (its image's Dockerfile
        # judged after an edit of the code beside it: not every workload of the tree)
        placed_in = judged if judged is not None and not context.reported_beyond else None
        for workload, template in context.index.workloads if every else context.workloads():
            spec = workload.spec
            if spec is None or not spec.serves:
                continue
            if template.spec.get("shareProcessNamespace") is True:
                continue  # the pause container is PID 1
            own = placed_in is None or context.judges(workload)
            for container in template.long_running:
                link = context.links.of(workload, container.name) or _built_link(
                    context, workload, container
                )
                if not own and not _may_place_in(link, placed_in or frozenset()):
                    continue  # its finding is in its manifest or a file not judged
                found = self._judge(context, workload, template, container, link)
                if found is None:
                    continue
                place, finding = found
                if place.workload is not None and not context.judges(place.workload):
                    continue
                if place.workload is None:
                    if (place.path, place.line) in reported:
                        continue
                    reported.add((place.path, place.line))
                yield finding

    def _judge(
        self,
        context: Context,
        workload: K8sObject,
        template: PodTemplate,
        container: Container,
        link: Link | None,
    ) -> tuple[Place, Finding] | None:
        once = _runs_once(workload, template, container)
        started = _started(context, workload, container, link, once)
        if started is None:
            return None
        found, after, place = started
        if link is not None and not link.evidence and found.kind not in ("shell", "init"):
            return None  # no code is known: a runtime's or npm's handler may be there
        who = f"container {container.name!r} of {workload.ref.display}"
        said = _wording(context, link, who, found, after, place)
        if said is None:
            return None
        message, severity, place = said
        if severity is None and container.name not in context.index.serving(workload):
            severity = Severity.INFO
            message = (
                *message,
                "info only: no Service sends it clients, so no request is cut; it still "
                "waits out the grace period whenever the pod stops",
            )
        elif severity is None and (unlike := only_unlike(context.index, workload, container)):
            severity = Severity.INFO
            message = (
                *message,
                f"info only: {unlike.said}; it still waits out the grace period whenever the "
                "pod stops",
            )
        related = [Related(workload.path, container.pos[0], f"{who} runs it")]
        if place.inherited:
            message = (*message, place.inherited)
            path, _, line = place.base.rpartition(":")
            related.append(Related(path, int(line), "the line the image inherits"))
        finding = self.code_finding(
            Loc(place.path, place.line, place.column),
            message,
            severity=severity,
            related=related if place.workload is None else [],
            fix=place.fix,
            edits=place.edits,
        )
        if place.workload is not None:
            finding = replace(finding, object=workload.ref, container=container.name)
        return place, finding


def _may_place_in(link: Link | None, files: frozenset[str]) -> bool:
    """Whether a finding about the link's container may be placed in one of `files` other
    than its workload's manifest: the only other places are the lines of its image's
    Dockerfile (its ENTRYPOINT or CMD, its own or the base's it runs, its FROM line under
    an inherited one: _place, _entry_script, _inherited_place) and the build definition's
    line that sets its command (Tilt's `entrypoint=`). With no link, none: only the
    manifest's `command` or `args` are then placed."""
    if link is None:
        return False
    said: list[Said | None] = [link.entrypoint_set.said if link.entrypoint_set else None]
    if link.dockerfile is not None:
        for dockerfile in (link.dockerfile, link.dockerfile.runs):
            said += [dockerfile.entrypoint_said, dockerfile.cmd_said, dockerfile.from_said]
    return any(at is not None and at.path in files for at in said)


def _built_link(context: Context, workload: K8sObject, container: Container) -> Link | None:
    """For a container linked to no code whose image a build of the tree makes (the
    program comes from a release archive the Dockerfile adds, `docker build -t acme/api
    docker/api/`): a link of no code and no evidence, with that Dockerfile and the build's
    context, so that what the image runs as PID 1, its ENTRYPOINT, CMD and the scripts its
    COPY lines put there, is judged; only a shell or an init is then reported, which need
    no code (a runtime's or npm's handler would be in the code no link names)."""
    built = context.links.unlinked_build(workload, container.name)
    if built is None:
        return None
    dockerfile, folder = built
    return Link(workload, container, folder, None, (), (), dockerfile=dockerfile)


def _started(
    context: Context, workload: K8sObject, container: Container, link: Link | None, once: bool
) -> tuple[Pid1, Pid1 | None, Place] | None:
    """What runs as the container's PID 1 (from its command and args, or its image's
    Dockerfile, or a script of the tree run as the program), what a shell as PID 1 runs
    last, and where that is written; None when a signal reaches the server (a preStop hook
    that stops it, a PID 1 that is not a shell, launcher or runtime)."""
    dockerfile = link.dockerfile.runs if link is not None and link.dockerfile else None
    command, args = container.body.get("command"), container.body.get("args")
    command = command if isinstance(command, list) and command else None
    args = args if isinstance(args, list) and args else None
    entrypoint = dockerfile.entrypoint if dockerfile is not None else None
    cmd = dockerfile.cmd if dockerfile is not None else None
    argv = container_argv(command, args, entrypoint, cmd)
    # which shell /bin/sh is: the Dockerfile's base image says (the one the link's evidence
    # found, with no code linked too), else the container's image
    image = container.body.get("image")
    built = dockerfile or (
        context.links.unlinked_dockerfile(workload, container.name) if link is None else None
    )
    sh = dockerfile_sh(built) if built is not None else image_sh(image)
    place: Place | None = None
    set_by = link.entrypoint_set if link is not None else None
    if set_by is not None:
        # the build tool sets the command over the Dockerfile's and the manifest's (Tilt's
        # `entrypoint=`): under its exec-form wrapper (`docker_build_with_restart`) the
        # wrapper is PID 1; else its words are, written in its line (no fix of ours there)
        if set_by.wrapper:
            return None
        argv = container_argv(list(set_by.entrypoint or ()), args, None, None)
        said = set_by.said
        place = Place(said.path, said.line, 1, said.text, (), "")
    found = pid1(argv, sh, _resolver(context, link, sh)) or _console_script(context, link, argv)
    if found is None and not once and (init := init_child(argv)) is not None:
        child = _init_child(context, link, *init, sh=sh)
        if child is None or _hook_stops_server(container, argv, child):
            return None
        place = place or _place(workload, container, dockerfile, command, args, child)
        if place is None:
            return None
        if dockerfile is not None and place.path in _base_paths(dockerfile):
            place = _inherited_place(dockerfile, place)
        return child, None, replace(place, edits=(), fix=_init_fix(child))
    if found is not None and found.kind == "shell" and _ends_by_itself(found.words):
        return None  # a script of commands that each end (`chown ... && echo done`)
    if once and not (found is not None and _runs_on(found)):
        return None  # a task's Pod, run to completion
    if found is None:  # a script of the tree, run as the program
        found, place = _entry_script(context, workload, container, link, command, args, argv, sh)
        if found is None:
            return None
    if _hook_stops_server(container, argv, found):
        return None
    # what the shell runs last, which may become PID 1 in its place
    after = pid1(found.last, sh) if found.kind == "shell" and found.last else None
    if after is not None and after.kind == "launcher":
        found = replace(found, exec_prefix=False)  # exec would leave the launcher there
    if idle := _idle(found):  # exec would leave it PID 1, as deaf to SIGTERM
        found = replace(found, exec_prefix=False, idle=idle, severity=None, why="")
    place = place or _place(workload, container, dockerfile, command, args, found)
    if place is None:
        return None
    if dockerfile is not None and place.path in _base_paths(dockerfile):
        place = _inherited_place(dockerfile, place)
    if idle:
        place = replace(place, edits=(), fix=_idle_fix(idle, found))
    return found, after, place


def _console_script(context: Context, link: Link | None, argv: Sequence[object]) -> Pid1 | None:
    """Python as PID 1 when the command, past the prefixes that exec it
    (`opentelemetry-instrument acme-api`), is a Python project's console script whose
    module the container's link runs: pip installs it as a Python script that calls the
    module's function, so the interpreter runs in the command's place."""
    ran = past_prefixes([str(word) for word in argv])
    if link is None or link.entry is None or not ran:
        return None
    if context.links.console_module(ran) != link.entry:
        return None
    return Pid1("runtime", f"{posixpath.basename(ran[0])} (Python)", tuple(ran))


def _wording(
    context: Context, link: Link | None, who: str, found: Pid1, after: Pid1 | None, place: Place
) -> tuple[tuple[str, ...], Severity | None, Place] | None:
    """What the finding says of PID 1 (`found`), its severity (None: the rule's), and the
    place with the fix that is right for it; None when nothing is wrong."""
    if found.kind == "runtime":
        runtime = _runtime(context, link, who, found)
        if runtime is None:
            return None
        return *runtime, place
    if found.kind == "launcher" and found.launcher is not None:
        if found.launcher.waits and _drains(context, link):
            return None  # it passes SIGTERM on, waits, and the server's handler closes it
        headline = (
            f"SIGTERM stops {who} at once, undrained: {found.program} is PID 1"
            if found.launcher.passes_on
            else f"SIGTERM never reaches {who}: {found.program} is PID 1"
        )
        message: tuple[str, ...] = (
            headline,
            f"{found.program} {found.launcher.why}",
            found.launcher.instead,
        )
        return message, None, place
    if found.kind == "shell" and after is not None and after.launcher is not None:
        # handed over or not, the launcher stays between the signal and the server
        place = replace(place, edits=())  # no exec form helps: it would run the launcher
        shell = f"{_shell_words(place, found)}, then {after.program} runs the server"
        message = (
            f"SIGTERM never reaches {who}: {shell}",
            f"the shell passes no signal on, and {after.program} {after.launcher.why}",
        )
        if after.launcher.passes_on:  # it passes the signal on, if it gets it
            message = (
                f"SIGTERM never reaches {who}: {shell}",
                f"the shell passes no signal on, so {after.program} never gets it",
            )
            if found.why:  # a shell that may hand it PID 1
                message = (
                    f"SIGTERM never reaches {who}, or stops it at once undrained: {shell}",
                    f"a shell that runs {after.program} as its child passes it no signal; one "
                    f"that runs it in its own place (bash, BusyBox ash) makes it PID 1, and "
                    f"{after.program} {after.launcher.why}",
                )
        message += (
            f"`exec` in front would leave {after.program} as PID 1",
            after.launcher.instead,
        )
        return message, None, place
    if found.kind == "shell":
        return _shell_wording(context, link, who, found, after, place)
    if found.kind == "init":
        server = " ".join(found.last[:3]) + (" ..." if len(found.last) > 3 else "")
        how = (
            f"runs `exec {server}` in a pipeline, where exec replaces only the pipeline's "
            "subshell, with no trap"
            if found.piped
            else f"starts `{server}` in the background, with no exec and no trap"
        )
        message = (
            f"SIGTERM never reaches {who}: {found.program} is PID 1 and passes SIGTERM to its "
            f"child alone, {found.script}, a {found.child_shell} script that {how}",
            f"{found.child_shell} ends on SIGTERM without passing it on, {found.program} exits "
            f"with it, and `{found.last[0]}` is killed with the container, never told to stop: "
            "what it has in flight is cut",
            place.fix,
        )
        return message, None, place
    return None


def _drains(context: Context, link: Link | None) -> bool:
    """Whether the code the container runs (less the entries other containers start) has
    a SIGTERM handler that closes a server its module listens with."""
    if link is None:
        return False
    return any(m.sigterm_drains for m in entries_of(context.links).code(link) if not m.is_test)


def _shell_wording(
    context: Context, link: Link | None, who: str, found: Pid1, after: Pid1 | None, place: Place
) -> tuple[tuple[str, ...], Severity | None, Place]:
    """What the finding says of a shell as PID 1, which passes no signal on: what it runs
    last (a script of the tree, a runtime with no handler) decides the words and the fix."""
    shell = _shell_words(place, found)
    if found.idle:  # whichever shell it is, the wait ends only by SIGKILL
        return (
            (
                f"SIGTERM never ends {who}: {shell}, and {found.idle}, which it runs, ignores it "
                "too",
                "nothing in the pod ends on SIGTERM: each stop waits out the grace period for "
                "SIGKILL, and a rollout or drain waits with it",
                place.fix,
            ),
            found.severity,
            place,
        )
    if found.why and _serves_before_last(link, found):
        found = replace(found, severity=None, why="")  # it is never run in the shell's place
    if found.script:
        place = replace(place, fix=_script_fix(found))
    inner = _last_script(context, link, found) if after is None else None
    if inner is not None and inner.kind == "runtime":
        after = inner
    elif inner is not None and inner.kind == "shell":
        found = replace(found, severity=None, why="")
        place = replace(place, edits=(), fix=_script_fix(inner, around=found))
        shell += (
            f", and {inner.script}, which it runs, is a {inner.program} script that runs "
            "each of its commands as a child, none with exec"
        )
    # handed over or not, a Node or Python program with no handler ignores it
    judged = _runtime(context, link, who, after) if after is not None else None
    bare = after is not None and after.kind == "runtime" and judged is not None and not judged[1]
    uncertain = bool(found.why) and not bare
    message: tuple[str, ...] = (
        f"SIGTERM {'may not reach' if uncertain else 'never reaches'} {who}: {shell}",
        "a shell as PID 1 ignores SIGTERM and does not pass it on: the server runs on "
        "until SIGKILL at the end of the grace period, cutting what is in flight, and "
        "every rollout waits out the grace",
        place.fix
        or "put `exec` in front of the command that starts the server, or an "
        "init (tini) as the entry point",
    )
    severity = found.severity
    if bare and after is not None:
        severity = None
        message += (
            f"and {after.program}, once PID 1, has no SIGTERM handler in its code "
            "either: register one that stops the server gracefully",
        )
    elif found.why:
        message += (f"info only: {found.why}; exec makes it certain",)
    elif found.image_shell == DASH:
        message += (
            "the image's base is Debian's or Ubuntu's, whose /bin/sh is dash, built to run "
            "every command of the script as its child, a lone one too",
        )
    return message, severity, place


# Programs a shell may run last that wait and serve nothing, and have no SIGTERM handler:
# once PID 1 they ignore the signal as the shell does, so `exec` in front changes nothing.
_IDLE = frozenset({"sleep", "tail"})


def _idle(found: Pid1) -> str:
    """The program of the shell's one command when it only waits (`sleep 365d`, `tail -f
    /dev/null`), else "" (after a server started in the background it is no lone one)."""
    if found.kind != "shell" or not found.last or not found.exec_prefix:
        return ""
    program = posixpath.basename(found.last[0])
    return program if program in _IDLE else ""


def _runs_once(workload: K8sObject, template: PodTemplate, container: Container) -> bool:
    """Whether a bare Pod's container is a task that runs to completion: the Pod restarts
    it only on failure or never (`restartPolicy` OnFailure or Never), and the container
    opens no port and has no probe, so nothing is served that SIGTERM should drain
    (unless its shell visibly runs on: _runs_on)."""
    if not workload.is_a("", "Pod"):
        return False
    if template.spec.get("restartPolicy") not in ("Never", "OnFailure"):
        return False
    probes = ("readinessProbe", "livenessProbe", "startupProbe")
    return not any(True for _ in container.ports()) and not any(
        probe in container.body for probe in probes
    )


# Programs that end by themselves, whatever they are given (none reads its input to the
# end: a filter given /dev/urandom never ends): a shell script made of them alone (no
# loop, nothing in the background) runs once and exits; SIGTERM has nothing to stop.
# `sleep`, `tail` and servers are not among them.
_ENDING = frozenset(
    {
        *_BUILTINS - {"wait", "read", "eval", "."},
        "test",
        "[",
        "[[",
        "touch",
        "chown",
        "chmod",
        "chgrp",
        "mkdir",
        "cp",
        "mv",
        "rm",
        "ln",
        "date",
        "id",
        "ls",
        "hostname",
        "uname",
        "whoami",
        "pwd",
        "basename",
        "dirname",
        "head",
        "stat",
        "df",
        "du",
    }
)
# Loops a script may not leave by itself.
_LOOPS = frozenset({"while", "until"})


def _runs_on(found: Pid1) -> bool:
    """Whether a shell's `-c` script visibly runs on: a `while` or `until` loop, or a
    program that only waits (`sleep`, `tail`)."""
    if found.kind != "shell" or len(found.words) != 3:
        return False
    for command in _commands(found.words[2]) or ():
        if any(word in _LOOPS for word in command.words):
            return True
        program = _program_words(command.words)
        if program and posixpath.basename(program[0]) in _IDLE:
            return True
    return False


def _ends_by_itself(words: Sequence[str]) -> bool:
    """Whether a shell's `-c` script (`words`: the shell, `-c`, the script) is made only
    of commands that end by themselves (_ENDING), in sequence or in pipelines, with no
    `while`/`until` loop and nothing left in the background: it exits on its own, so
    there is no server for SIGTERM to reach. A pipeline whose last command is `head`
    ends when head has read enough, whatever writes to it (`base64 /dev/urandom | head`)."""
    if len(words) != 3 or words[1] != "-c":
        return False
    commands = _commands(words[2])
    if not commands:
        return False
    for at, command in enumerate(commands):
        if command.after in ("&", "|&") or any(word in _LOOPS for word in command.words):
            return False
        program = _program_words(command.words)
        if not program:
            continue  # `fi`: a keyword alone
        name = posixpath.basename(program[0])
        if name in _ENDING:
            continue
        # what writes into `head` ends when head stops reading
        piped = command.after in ("|", "|&") and at + 1 < len(commands)
        if piped and _program_words(commands[at + 1].words)[:1] == ["head"]:
            continue
        return False
    return True


def _idle_fix(program: str, found: Pid1) -> str:
    waits = " ".join(found.last)
    return (
        f"{program} ignores SIGTERM as PID 1 too, so exec alone changes nothing: end the "
        f"wait on the signal (`trap 'exit 0' TERM; {waits} & wait`) or put an init (tini) "
        "in front"
    )


def _serves_before_last(link: Link | None, found: Pid1) -> bool:
    """Whether the program whose code the container runs is one the shell's list runs
    before its last command (`python app.py && python consumer.py`): no shell runs it in
    its own place, whatever it does with the last."""
    entry = entry_of(list(found.words))
    if link is None or link.entry is None or entry is None or not entry.then:
        return False
    last = entry.then[-1].relative_paths()
    return not any(link.entry.endswith(os.path.normpath(path.lstrip("/"))) for path in last)


def _shell_words(place: Place, found: Pid1) -> str:
    """How the finding names the shell: a script of the tree, the Dockerfile's shell-form
    line, or `sh -c`."""
    if found.script:
        via = f" ({'; '.join(found.via)})" if found.via else ""
        return (
            f"{found.script} is PID 1{via}, a {found.program} script that runs each of its "
            "commands as a child, none with exec"
        )
    instruction, _, rest = place.said.partition(" ")
    if place.workload is None and not rest.lstrip().startswith("["):
        return f"shell-form {instruction} makes /bin/sh PID 1"
    return f"{found.program} -c is PID 1"


def _hook_stops_server(container: Container, argv: Sequence[object], found: Pid1) -> bool:
    """Whether the container's preStop hook sends a stop signal to a process its command
    line runs other than PID 1 (`kill -TERM $(pidof app)`, `pkill app`, or every process
    with `kill -TERM -1`): the server hears it from the hook. A signal to PID 1 itself
    (`kill 1`, or the server when it is PID 1) is dropped as the kubelet's is."""
    if found.kind == "runtime":
        return False  # the server is PID 1: no signal sent from inside reaches its handler
    named = {posixpath.basename(w) for word in argv for w in str(word).split()}
    named.discard(found.program)
    return any(
        kill.signal in STOP_SIGNALS
        and (kill.name is None or posixpath.basename(kill.name) in named)
        for kill in container.prestop_kills()
    )


def _runtime(
    context: Context, link: Link | None, who: str, found: Pid1
) -> tuple[tuple[str, ...], Severity | None] | None:
    """The message for Node.js or Python as PID 1 with no SIGTERM handler in the code the
    container runs, and its severity (None: the rule's); None when k8slb does not know
    that code, or it has a handler, or it is a gRPC server that grpc-no-graceful-shutdown
    judges."""
    runner = in_process(found.words)
    if link is None or _next_standalone(link, found) or django_reloader(found.words):
        return None
    # an in-process runner (`flask run`) names the application apart, or not at all: the
    # code of its folder is what it runs; so does Python a script hands PID 1 to (`exec
    # python manage.py runserver`), by the module it names among the linked code
    entries = entries_of(context.links)
    named = link.entry is not None or runner is not None or _handed_module(context, link, found)
    code = entries.code(link) if named else None
    built_from, output = "", ""
    if code is not None and runner is None:
        built_from = _compiled_entry(link, found)
    if code is None:
        judged = _node_program(context, entries, link, found)
        if judged is None:
            return None
        built_from, code, output = judged
    if not code or any(m.sigterm_handlers or m.signal_servers or _grpc_waited(m) for m in code):
        return None
    if _reaches_handler(context, link, found):
        return None
    program = f"{runner} (Python)" if runner is not None else found.program
    message: tuple[str, ...] = (
        f"{program} is PID 1 of {who} with no SIGTERM handler in the code it runs{built_from}",
        f"as PID 1, {program} ignores a signal it has no handler for: the server runs on "
        "until SIGKILL at the end of the grace period, cutting what is in flight, and every "
        "rollout waits out the grace",
        "register a SIGTERM handler that stops the server gracefully, or put tini in front",
    )
    if not output:
        return message, None
    # the file node runs is no module k8slb read: what it holds, or what a framework writes
    # into it at build time, may be a server and its SIGTERM handler
    return (*message, f"info only: {_unread(output, link.dockerfile)}"), Severity.INFO


def _reaches_handler(context: Context, link: Link, found: Pid1) -> bool:
    """Whether the Python program's entry reaches, by calls k8slb follows through the
    tree's modules (code/reach.py), a SIGTERM handler or a server that installs one: from
    the function its console script names (else its own code and `__main__` block), into
    a helper of a package of another project of the tree (a workspace's shared library)
    that its import closure does not hold."""
    entry = os.path.normpath(link.entry) if link.entry is not None else None
    facts = context.links.modules.get(entry) if entry is not None else None
    if entry is None or facts is None or facts.language != "python":
        return False
    function = context.links.console_function(found.words)
    functions: tuple[str, ...]
    if function is None:
        functions = (MODULE, MAIN)
    else:  # an attribute path (`cli.main`) is a method: the module's own code alone
        functions = (MODULE, function) if function.isidentifier() else (MODULE,)
    return reached_signal(context.links.modules, entry, functions) is not None


def _grpc_waited(module: CodeFacts) -> bool:
    """Whether the module waits on a gRPC server it starts, which grpc-no-graceful-shutdown
    judges: a wait of a module that starts none (an asyncio loop's `run_forever()` in a
    worker thread) is no server's, and leaves Python or Node as PID 1 to this rule."""
    started = {server.name for server in module.servers if server.name in module.starts}
    return bool(module.waits) and bool(started)


def _handed_module(context: Context, link: Link, found: Pid1) -> bool:
    """Whether Python as PID 1 runs a module of the linked code that its words name (a
    script of the tree hands PID 1 over, `exec python manage.py runserver`, where the
    link read only the Dockerfile's command): one module of the link by that path, from
    the image's working folder or the linked folder."""
    entry = entry_of(list(found.words))
    if entry is None or entry.node or not _RUNTIMES.match(posixpath.basename(found.program)):
        return False
    dockerfile = link.dockerfile
    workdir = dockerfile.workdir if dockerfile is not None else "/"
    own = [os.path.normpath(m.path) for m in context.links.code(link)]
    for relative in entry.relative_paths():
        in_image = posixpath.normpath(posixpath.join(workdir, relative))
        tails = {os.path.normpath(relative.lstrip("/"))}
        if dockerfile is not None:
            tails.update(os.path.normpath(p) for p in dockerfile.sources_of(in_image)[:1])
        found_paths = {
            path
            for path in own
            for tail in tails
            if path == os.path.join(link.folder, tail) or path.endswith(os.sep + tail)
        }
        if len(found_paths) == 1:
            return True
    return False


def _unread(script: str, dockerfile: Dockerfile | None) -> str:
    """Why what the file node runs holds is not known, as its path (in the image, and in
    the build context the Dockerfile copies it from) says: a file with no JavaScript
    extension (an Express generator's `bin/www`), which k8slb does not read as a module;
    output the build writes (`dist/`, `.output/`, `.next/standalone/`); else either."""
    paths = [script]
    if dockerfile is not None:
        in_image = posixpath.join(dockerfile.workdir, script)
        paths += [*dockerfile.built_sources_of(in_image), *dockerfile.sources_of(in_image)][:1]
    parts = [part for path in paths for part in posixpath.normpath(path).split("/")[:-1] if part]
    if "." not in posixpath.basename(script):
        return (
            f"{script} is a file with no JavaScript extension, which k8slb does not read as a "
            "module, so a SIGTERM handler in it (or in what it alone requires) is not in the "
            "code read"
        )
    if any(part in OUTPUT_FOLDERS or (part.startswith(".") and part != "..") for part in parts):
        return (
            f"{script} is build output made from no module k8slb can name, so what a "
            "framework writes into it at build time (its server, a SIGTERM handler) is not in "
            "the code read"
        )
    return (
        f"{script} is no module k8slb read (a file the build makes, or one it does not "
        "parse), so a server and SIGTERM handler in it are not in the code read"
    )


# Next.js's standalone output (`output: 'standalone'` in next.config.js) puts a server.js
# that `next build` writes in `.next/standalone/`; it registers SIGTERM and SIGINT handlers
# unless NEXT_MANUAL_SIG_HANDLE is set (the file next/dist/build writes: `if
# (!process.env.NEXT_MANUAL_SIG_HANDLE) { process.on('SIGTERM', () => process.exit(0)) ...`;
# later versions' start-server, which it calls, under the same variable): SIGTERM reaches
# it, and it exits at once, as werkzeug's reloader does.
_NEXT_STANDALONE = ".next/standalone"
_NEXT_MANUAL = "NEXT_MANUAL_SIG_HANDLE"


def _next_standalone(link: Link, found: Pid1) -> bool:
    """Whether node runs the server.js of Next.js's standalone output, copied from a build
    stage's `.next/standalone/` (or from the context's), with no NEXT_MANUAL_SIG_HANDLE set
    by the container's env or an ENV line of its Dockerfile or of a base the repository
    builds."""
    dockerfile = link.dockerfile
    entry = entry_of(list(found.words)) if posixpath.basename(found.program) in _NODE else None
    script = entry.script if entry is not None and entry.node else None
    if dockerfile is None or script is None or posixpath.basename(script) != "server.js":
        return False
    in_image = posixpath.normpath(posixpath.join(dockerfile.workdir, script))
    sources = [*dockerfile.built_sources_of(in_image), *dockerfile.sources_of(in_image)]
    if not any(f"/{_NEXT_STANDALONE}/" in "/" + posixpath.normpath(s) for s in sources[:1]):
        return False
    env = link.container.body.get("env")
    named = {e.get("name") for e in env if isinstance(e, dict)} if isinstance(env, list) else set()
    chain: Dockerfile | None = dockerfile
    for _ in range(MAX_BASE_DEPTH + 1):
        if chain is None:
            break
        named.update(chain.env_names)
        chain = chain.inherited
    return _NEXT_MANUAL not in named


def _compiled_entry(link: Link, found: Pid1) -> str:
    """Said of a Node program whose command names the file a build writes (`node
    out/main.js`) while the link knows the module it is built from (`src/main.ts`): which
    source that is, as where the link found no entry module (`_node_program`)."""
    entry = entry_of(found.words)
    script = entry.script if entry is not None and entry.node else None
    if script is None or link.entry is None or posixpath.basename(found.program) not in _NODE:
        return ""
    shown = os.path.relpath(link.entry, link.folder)
    if posixpath.splitext(posixpath.normpath(script))[0] == posixpath.splitext(shown)[0]:
        return ""  # the command names the module itself
    return f" (the program of {shown}, which {script} is built from)"


def _node_program(
    context: Context, entries: Entries, link: Link, found: Pid1
) -> tuple[str, list[CodeFacts], str] | None:
    """The Node program that `node` runs when the link knows no entry module (the command
    names compiled output, `node dist/apps/auth/main`): the program of the source it is
    built from (code/entry_points.compiled_sources, or what the build says it makes the
    file from: model/entries.built_source), else the linked code when it is one
    Node program; with the programs of the workspace above it, whose libraries it may
    import by a path alias, less the entries other containers of that code start. Said as
    where it was found, with the script when no source of it is known; None when
    uncertain."""
    # a link by a name alike judges the Dockerfile's folder rightly only when PID 1 is that
    # Dockerfile's (the finding is then on its line), not the manifest's command
    commanded = bool(link.container.body.get("command") or link.container.body.get("args"))
    if posixpath.basename(found.program) not in _NODE or (link.guessed and commanded):
        return None
    entry = entry_of(found.words)
    script = entry.script if entry is not None and entry.node else None
    own = [m for m in context.links.code(link) if not m.is_test]
    if not own or not all(LANGUAGES[m.language].project_files for m in own):
        return None
    source = compiled_source(context.links, link.folder, script) if script is not None else None
    if source is None and script is not None:  # what the build says it makes the file from
        source = built_source(context.links, link, script)
    output = ""
    if source is not None:
        project = context.links.modules[source].project
        shown = os.path.relpath(source, link.folder)
        said = f" (the program of {shown}, which {script} is built from)"
    elif len({m.project for m in own}) == 1:
        project = own[0].project
        said = f" (the one Node program linked to it, in {os.path.relpath(project, link.folder)})"
        output = _built_output(script, own)
    else:
        return None
    program = [
        m for m in context.links.modules.values() if not m.is_test and within(project, m.project)
    ]
    others = entries.others_among(link, [os.path.normpath(m.path) for m in program])
    program = [m for m in program if os.path.normpath(m.path) not in others]
    return said, program, output


def _built_output(script: str | None, code: Sequence[CodeFacts]) -> str:
    """The script node runs when no module of its code is that file (`dist/bundle.js`,
    `.output/server/index.mjs`: what the build makes), else nothing."""
    if script is None:
        return ""
    tail = os.sep + os.path.normpath(script.lstrip("/"))
    return "" if any((os.sep + os.path.normpath(m.path)).endswith(tail) for m in code) else script


def _place(
    workload: K8sObject,
    container: Container,
    dockerfile: Dockerfile | None,
    command: list[object] | None,
    args: list[object] | None,
    found: Pid1,
) -> Place | None:
    """Where the words that make PID 1 are written: the container's `command` (or `args`,
    when they replace a CMD under no ENTRYPOINT), else the Dockerfile's line."""
    no_entrypoint = dockerfile is not None and not dockerfile.entrypoint
    if command is not None or (args is not None and no_entrypoint):
        key = "command" if command is not None else "args"
        line, column = pos_of(container.body, key, value=True)
        edits: tuple[Edit, ...] = ()
        fix = ""
        script = [*(command or []), *(args or [])][2] if found.exec_prefix else None
        if isinstance(script, str):
            # the script is the third word: in `command`, or in `args` after a short one
            given = len(command) if command is not None else 0
            owner, at = ("command", 2) if given >= 3 else ("args", 2 - given)
            new = "exec " + script.lstrip()
            target = (*workload.root_path, *container.path, owner, at)
            edits = (YamlEdit(workload.path, workload.document, target, "set-scalar", new),)
            fix = f"put exec in front of the command: {new!r}"
        return Place(workload.path, line, column, key, edits, fix, workload)
    if dockerfile is None:
        return None
    said = dockerfile.entrypoint_said if dockerfile.entrypoint else dockerfile.cmd_said
    if said is None:
        return None
    edits, fix = _dockerfile_fix(dockerfile, said, found, args)
    return Place(said.path, said.line, 1, said.text, edits, fix)


def _base_paths(dockerfile: Dockerfile) -> set[str]:
    """The paths of the Dockerfiles of the repository that build the image's bases."""
    paths: set[str] = set()
    base = dockerfile.inherited
    while base is not None and base.path not in paths and base.path != dockerfile.path:
        paths.add(base.path)
        base = base.inherited
    return paths


def _inherited_place(dockerfile: Dockerfile, place: Place) -> Place:
    """A line of the base's Dockerfile that the image inherits (its base built in the
    repository sets the ENTRYPOINT or CMD it runs), placed at the image's own FROM line: the
    finding is the image's; the fix is made in the base, for every image built FROM it."""
    at = dockerfile.from_said
    if at is None:
        return place
    where = f"{place.path}:{place.line}"
    fix = f"in {where}: {place.fix}" if place.fix else ""
    instruction = place.said.partition(" ")[0]
    inherited = (
        f"`{at.text}` inherits the {instruction} of {where}, the Dockerfile of the repository "
        f"that builds {dockerfile.base}"
    )
    return Place(at.path, at.line, 1, place.said, (), fix, inherited=inherited, base=where)


def _dockerfile_fix(
    dockerfile: Dockerfile, said: Said, found: Pid1, args: list[object] | None
) -> tuple[tuple[Edit, ...], str]:
    """The exec form of a shell-form line with one command and nothing for the shell to
    expand, or `exec` in front of one command that needs the shell; none for a script."""
    instruction, _, rest = said.text.partition(" ")
    rest = rest.strip()
    if found.kind != "shell" or not found.exec_prefix or rest.startswith("["):
        return (), ""
    if instruction == "ENTRYPOINT" and (dockerfile.cmd or args):
        return (), ""  # the exec form would take them as arguments; the shell form drops them
    try:
        words = shlex.split(rest)
    except ValueError:
        return (), ""
    if words and not any(_SHELL_CHARACTERS.search(word) for word in words):
        new = f"{instruction} {json.dumps(words)}"
    else:
        new = f"{instruction} exec {rest}"
    return (LineEdit(said.path, said.line, said.text, new),), f"write {new}"


# -- scripts of the tree that a container runs ---------------------------------------------

# What `exec` hands over to when it is given the script's own arguments.
_ARGUMENTS = frozenset({"$@", "${@}", "$*", "${*}"})


# Inits that pass SIGTERM to their child alone, unless told to signal its process group
# (tini's and catatonit's `-g`); dumb-init signals the group unless told not to.
_CHILD_ONLY = frozenset({"tini", "tini-static", "docker-init", "catatonit"})
_INIT_VALUED = frozenset({"-p", "-e", "-r", "--rewrite"})  # options that take a value


def init_child(argv: Sequence[object]) -> tuple[str, list[str]] | None:
    """An init as PID 1 that passes SIGTERM to its child alone, and the child's command
    line; None for any other program, an init told to signal the child's process group
    (tini -g, dumb-init without --single-child), or one with no child named."""
    words = [str(word) for word in argv]
    program = posixpath.basename(words[0]) if words else ""
    if program not in _INITS:
        return None
    group = program not in _CHILD_ONLY  # dumb-init: the group, by default
    at = 1
    while at < len(words) and words[at].startswith("-"):
        option = words[at]
        at += 1
        if option == "--":
            break
        if option in ("-c", "--single-child"):
            group = False
        elif not option.startswith("--") and "g" in option[1:]:
            group = True
        elif option in _INIT_VALUED:
            at += 1
    return None if group or at >= len(words) else (program, words[at:])


def _lone_command(child: Sequence[str], sh: str | None) -> list[str] | None:
    """The command a shell's `-c` script of one simple command runs in the shell's own
    place (`bash -c "/opt/acme/bin/run.sh start"`): bash does so with a lone command, and
    BusyBox ash with its last (`sh` when the image's /bin/sh is one of them); None for
    any other command line, or a shell that may keep the command as its child."""
    words = list(child)
    program = posixpath.basename(words[0]) if words else ""
    if program not in _SHELLS or len(words) < 3 or not _COMMAND_OPTION.fullmatch(words[1]):
        return None
    shell = sh if program == "sh" and sh is not None else program
    commands = _commands(words[2])
    if shell not in (BASH, ASH) or not commands or len(commands) != 1:
        return None
    lone = commands[0]
    if not _may_hand_over(lone) or _ASSIGNMENT.match(lone.words[0]):
        return None
    return _program_words(lone.words)


def _init_child(
    context: Context, link: Link | None, init: str, child: Sequence[str], sh: str | None = None
) -> Pid1 | None:
    """The init's child when it is a shell script of the image (from the tree) that, on
    the path its arguments take, starts a program in the background with no `exec` that
    hands over and no `trap` (or runs it with exec in a pipeline, which replaces only the
    pipeline's subshell): that job never hears SIGTERM. A shell's `-c` script of one
    command that the shell runs in its own place (_lone_command) is looked through to it.
    None when the script is not the tree's, cannot be read, traps a signal, execs a
    program, sets its arguments anew, or starts nothing in the background."""
    child = _lone_command(child, sh) or child
    operand = _shell_operand(child)
    if operand is not None:
        shell, word, args = operand
        script = _script_of(context, link, word, operand=True)
        script = replace(script, shell=shell) if script is not None else None
    else:
        script = _script_of(context, link, child[0]) if child else None
        args = list(child[1:])
    commands = _script_commands(script.text) if script and script.text is not None else None
    if script is None or not commands:
        return None
    background: tuple[str, ...] = ()
    piped: tuple[str, ...] = ()
    for command in commands:
        words = _program_words(command.words)
        if words[:1] == ["trap"] or (words[:1] == ["set"] and "--" in words):
            return None
        execs = words[:1] == ["exec"]
        handed = _unredirected(words[1:]) if execs and _replaces_shell(command) else []
        if handed and (handed[0] not in _ARGUMENTS or args):
            return None  # `exec "$@"` with no arguments runs nothing: the script goes on
        if execs and not background and len(words) > 1 and command.after in _PIPES:
            piped = tuple(_unredirected(words[1:]))  # `exec java | tee`: its subshell's
            background = piped
        if command.after == "&" and words and words[0] not in _BUILTINS and not background:
            background = tuple(words)
    if not background:
        return None
    name = posixpath.basename(script.path)
    line = (init, *child)
    return Pid1(
        "init", init, line, last=background, script=name, child_shell=script.shell, piped=piped
    )


def _init_fix(found: Pid1) -> str:
    if found.piped:
        return (
            f"run {found.program} with -g, so that it signals the script's whole process "
            f"group, or run `exec {found.last[0]} ...` in {found.script} outside the pipeline "
            "(its output to the log by a redirection)"
        )
    return (
        f"run {found.program} with -g, so that it signals the script's whole process group, "
        f"or trap TERM in {found.script} and pass it on to `{found.last[0]}` before waiting "
        "for it"
    )


def script_pid1(
    script: ShellScript,
    args: Sequence[str],
    sh: str | None = None,
    resolve: Resolve | None = None,
) -> Pid1 | None:
    """What a shell script run as a program leaves as PID 1. Its shell runs every command
    as a child: a script file is never handed over to its last command (as `sh -c` may
    be) unless a command is run with `exec`, which hands PID 1 to that program (to the
    script's arguments for `exec "$@"`: an entry point's CMD). None when it traps a signal,
    sets its arguments anew (`set --`), or cannot be read (too long, a heredoc, quotes
    across lines). `sh` is which shell /bin/sh is in the image, for what it hands over to;
    `resolve` reads a script of the tree it hands over to (the hop is said in `via`)."""
    commands = _script_commands(script.text) if script.text is not None else None
    if not commands:
        return None
    piped: tuple[str, ...] = ()
    for command in commands:
        words = _program_words(command.words)
        if words[:1] == ["trap"] or (words[:1] == ["set"] and "--" in words):
            return None
        if words[:1] == ["exec"] and not _replaces_shell(command):
            piped = piped or tuple(_unredirected(words[1:]))
        elif words[:1] == ["exec"]:
            handed = _unredirected(words[1:])
            if not handed:
                continue  # `exec >log 2>&1`: the shell's own output redirected
            if handed[0] in _ARGUMENTS:
                return _handed(args, sh, resolve) if args else None
            found = _handed(handed, sh, resolve)
            if found is not None and found.via:  # the next hop is a script: say this one
                line = _exec_line(script.text or "", handed[0])
                hop = f"{script.path}:{line} execs {handed[0]}"
                found = replace(found, via=(hop, *found.via))
            return found
    name = posixpath.basename(script.path)
    last = tuple(_program_words(commands[-1].words))
    runs = _runs_last(commands)
    argv = (script.shell, script.path, *args)
    return Pid1("shell", script.shell, argv, last=last, script=name, runs_last=runs, piped=piped)


def _exec_line(text: str, program: str) -> int:
    """The line of a script that runs `program` with exec (the last such), for the
    message; 0 when none is seen so."""
    found = 0
    for number, line in enumerate(text.splitlines(), 1):
        if "exec" in line and program in line:
            found = number
    return found


# How many calls of the script's own functions are followed for what it runs last
MAX_FUNCTION_DEPTH = 4
# Commands a script ends with that start no server (an error branch's, a message's)
_NO_SERVER = frozenset({"exit", "echo", "printf", "return", ":", "true", "false"})


def _runs_last(commands: Sequence[Command]) -> tuple[str, ...]:
    """The program a script runs last outside its functions' bodies (`name() {` or
    `function name {` to the `}` that ends it), past the keywords, exits and messages of
    its closing branches; a call of one of its functions is that function's last command,
    MAX_FUNCTION_DEPTH calls deep. Empty when none is found."""
    bodies: dict[str, list[tuple[str, ...]]] = {}
    top: list[tuple[str, ...]] = []
    current: list[tuple[str, ...]] | None = None
    for command in commands:
        words = command.words
        named = words[1] if words[:1] == ("function",) and len(words) > 1 else words[0]
        if (
            current is None
            and words[-1:] == ("{",)
            and (words[:1] == ("function",) or (len(words) >= 2 and words[1] in ("()", "(")))
        ):
            current = bodies.setdefault(named.removesuffix("()"), [])
            continue
        if current is not None:
            if words == ("}",):
                current = None
            else:
                current.append(tuple(_program_words(words)))
            continue
        top.append(tuple(_program_words(words)))
    found = top
    for _ in range(MAX_FUNCTION_DEPTH + 1):
        ran = next((w for w in reversed(found) if w and w[0] not in _NO_SERVER), ())
        if not ran or ran[0] not in bodies:
            return ran
        found = bodies[ran[0]]
    return ()


_REDIRECTION = regex.compile(r"^[<>&]+$")  # a redirection's operator, as shlex splits it


def _unredirected(words: Sequence[str]) -> list[str]:
    """A command's words without its redirections (`>> log`, `2 >& 1`: an operator, the
    word after it, and a descriptor's number before it)."""
    kept: list[str] = []
    target = False
    for at, word in enumerate(words):
        following = words[at + 1] if at + 1 < len(words) else ""
        if target:
            target = False
        elif _REDIRECTION.match(word):
            target = True
        elif not (word.isdigit() and _REDIRECTION.match(following)):
            kept.append(word)
    return kept


def _script_commands(text: str) -> list[Command] | None:
    """A script file's simple commands: each line read as the shell reads it (a `#`
    comment to its end, a backslash joining the next line); None for what k8slb does not
    follow (quotes over several lines, a heredoc whose end is not found). A heredoc's
    lines (`cat > conf <<EOF` to the line `EOF`) are its command's input, not commands."""
    tokens: list[str] = []
    pending: list[tuple[str, bool]] = []  # the heredocs begun, in order: (end word, `<<-`)
    for line in text.replace("\\\n", " ").splitlines():
        if pending:  # a heredoc's body, up to its end word alone on a line
            end, tabs = pending[0]
            if (line.lstrip("\t") if tabs else line) == end:
                pending.pop(0)
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        try:
            words = list(lexer)
        except ValueError:
            return None
        begun = _heredocs(words)
        if begun is None:
            return None
        pending = begun
        tokens += [*words, ";"] if words else []
    return _grouped(tokens) if not pending else None


def _heredocs(words: Sequence[str]) -> list[tuple[str, bool]] | None:
    """The heredocs a line's words begin (`<<EOF`, `<<-'EOF'`, as shlex splits them: `<<`
    then the word), each with its end word and whether tabs before it are dropped; None
    for one k8slb does not read (`<<<` is a here-string, no heredoc)."""
    found: list[tuple[str, bool]] = []
    for at, word in enumerate(words):
        if not word.startswith("<<") or word.startswith("<<<"):
            continue
        if word != "<<" or at + 1 >= len(words):
            return None
        end = words[at + 1]
        tabs = end.startswith("-")
        end = end[1:] if tabs else end
        if not end or not end.replace("_", "").isalnum():
            return None
        found.append((end, tabs))
    return found


# How many scripts of the tree are followed from a shell that hands PID 1 over (`bash -c
# ./run.sh`, `exec ./start.sh`), each read whole within MAX_SCRIPT (64 KiB)
MAX_SCRIPT_HOPS = 3
# The weakest evidence of a link: a name alike (`dockerfile name`, `image name` and weaker)
_NAMED = STRENGTH["dockerfile name"]


def _tree_script(context: Context, link: Link | None, word: str) -> ShellScript | None:
    """The script of the tree that a command hands PID 1 to by `word`: where a COPY of the
    image's Dockerfile put it; with no Dockerfile known, the one script of the tree whose
    path ends with it (or with its longest tail that one script's path ends with: an
    image's `/opt/acme/sbin/run.sh`), within the linked folder; outside it only when the
    link rests on names alone (the image's name is a folder's), which the path outweighs."""
    if link is not None and link.dockerfile is not None:
        return _script_of(context, link, word)
    scripts = context.links.scripts
    found = tree_scripts(scripts, word) or tail_scripts(scripts, word)
    if link is not None:
        inside = [s for s in found if within(os.path.normpath(s.path), link.folder)]
        by_name = all(STRENGTH.get(e.kind, 0) >= _NAMED for e in link.evidence)
        found = inside if inside or not by_name else found
    return found[0] if len(found) == 1 else None


def _resolver(context: Context, link: Link | None, sh: str | None) -> Resolve:
    """What reads a script of the tree that a shell or script hands PID 1 over to, as
    what it leaves as PID 1 (script_pid1), MAX_SCRIPT_HOPS scripts deep at most."""
    hops = [0]

    def resolve(words: Sequence[str]) -> Pid1 | None:
        script = _tree_script(context, link, words[0]) if words else None
        if script is None or hops[0] >= MAX_SCRIPT_HOPS:
            return None
        hops[0] += 1
        found = script_pid1(script, list(words[1:]), sh, resolve)
        if found is None:
            return None
        hop = f"{words[0]} is the repository's {script.path}"
        return replace(found, via=(hop, *found.via))

    return resolve


def _script_of(
    context: Context, link: Link | None, word: str, operand: bool = False
) -> ShellScript | None:
    """The script of the tree that the program `word` (a shell's `operand`) is in the
    container's image."""
    if link is None or link.dockerfile is None:
        return None
    return image_script(context.links.scripts, link.dockerfile, link.folder, word, operand)


def _shell_operand(argv: Sequence[object]) -> tuple[str, str, list[str]] | None:
    """A shell run on a script file (`sh docker-entrypoint.sh`, `bash -e run.sh ARG`):
    the shell, the file's word and its arguments; None for `sh -c` and any other program."""
    words = [str(word) for word in argv]
    program = posixpath.basename(words[0]) if words else ""
    if program not in _SHELLS:
        return None
    at = 1
    while at < len(words) and words[at].startswith("-"):
        flags = words[at][1:]
        if _COMMAND_OPTION.fullmatch(words[at]) or not flags.isalpha() or "o" in flags:
            return None  # `-c`, `-o NAME`, or a long option k8slb does not know
        at += 1
    return (program, words[at], words[at + 1 :]) if at < len(words) else None


def _operand_script(
    context: Context, link: Link | None, shell: str, word: str, args: list[str]
) -> Pid1 | None:
    """What a shell run on the script file `word` leaves as PID 1: the file in the image
    when a Dockerfile says where, else, for a container judged by its manifest alone, the
    tree's scripts by that path (those of its linked folder, when it has one), when every
    one of them leaves the shell PID 1 (the shell named runs it, whatever its first line
    says)."""
    script = _script_of(context, link, word, operand=True)
    if script is not None:
        return script_pid1(replace(script, shell=shell), args)
    if link is not None and link.dockerfile is not None:
        return None  # not the tree's: the base image's, or made in a RUN
    found = [
        script_pid1(replace(script, shell=shell), args)
        for script in tree_scripts(context.links.scripts, word)
        if link is None or within(os.path.normpath(script.path), link.folder)
    ]
    if not found or any(pid is None or not pid.script for pid in found):
        return None
    return found[0]


def _entry_script(
    context: Context,
    workload: K8sObject,
    container: Container,
    link: Link | None,
    command: list[object] | None,
    args: list[object] | None,
    argv: Sequence[object],
    sh: str | None = None,
) -> tuple[Pid1 | None, Place | None]:
    """PID 1 when the container's program is a script of the tree: the script's shell, or
    what it hands over to with `exec`. A script that ends with `exec "$@"` hands over to
    the CMD: the place is the CMD's line (or the manifest's `args`) then."""
    operand = _shell_operand(argv)
    if operand is not None:
        return _operand_script(context, link, *operand), None
    script = _script_of(context, link, str(argv[0])) if argv else None
    if script is None:
        return None, None
    rest = [str(word) for word in argv[1:]]
    found = script_pid1(script, rest, sh, _resolver(context, link, sh))
    if found is None or found.script or not rest or command is not None:
        return found, None
    dockerfile = link.dockerfile if link is not None else None
    if args is not None:  # the manifest's args replace the CMD
        line, column = pos_of(container.body, "args", value=True)
        return found, Place(workload.path, line, column, "args", workload=workload)
    if dockerfile is None or dockerfile.cmd_said is None:
        return found, None
    said = dockerfile.cmd_said
    edits, fix = _dockerfile_fix(dockerfile, said, found, None)
    return found, Place(said.path, said.line, 1, said.text, edits, fix)


def _last_script(context: Context, link: Link | None, found: Pid1) -> Pid1 | None:
    """What a script of the tree that a shell runs last leaves as PID 1's child."""
    script = _tree_script(context, link, found.last[0]) if found.last else None
    return script_pid1(script, list(found.last[1:])) if script is not None else None


def _script_fix(script: Pid1, around: Pid1 | None = None) -> str:
    """How to hand PID 1 to the server through a script that does not: `exec` in front of
    its last command (and of the script, where a shell runs it)."""
    last = " ".join(script.runs_last or script.last)
    if script.piped:
        return (
            f"exec in a pipeline replaces only the pipeline's subshell: in {script.script}, "
            f"run `exec {script.piped[0]} ...` outside the pipeline (its output to the log by a "
            "redirection), or put an init (tini -g) in front"
        )
    waits = posixpath.basename(script.last[0]) if script.last else ""
    if waits in _IDLE:  # it waits on what it started: exec would leave the wait PID 1
        return (
            f"{script.script} waits last with {waits}, which ignores SIGTERM as PID 1 too, so "
            f"exec in front of it changes nothing: run the server last in {script.script}, in "
            "the foreground with exec, or trap TERM there and pass it on to the server, or "
            "put an init that signals the whole process group in front (tini -g)"
        )
    if not last or (
        script.last[:1] and script.last[0] in _BUILTINS
    ):  # `wait -n`, `exit $?`: no program
        return (
            f"run the server last in {script.script}, in the foreground with exec, or an init "
            "(tini) in front of it that passes SIGTERM on"
        )
    where = (
        f", and run {script.script} with exec ({around.program} runs it as a child too)"
        if around is not None
        else ""
    )
    return f"put exec in front of the last command of {script.script} (`exec {last}`){where}"
