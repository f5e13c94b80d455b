"""`k8slb server`: a resident process that keeps k8slb imported, so that a run of the
command line (a pre-commit hook's above all) does not pay for its start-up.

Start-up is most of a short run: the interpreter, click and k8slb's own modules take some
0.15-0.25 s of a one-file check's 0.25-0.3 s. `k8slb server start` starts a process that
imports every module once and waits on a Unix socket. While it runs, `k8slb` (`served`,
before anything else is imported) hands it its arguments, working folder, environment,
file mode mask, resource limits and priority, and standard streams (the file descriptors
themselves), and the server
forks: the child becomes the run, writes to the caller's own terminal or pipes, and sends
back its exit status, which the caller exits with. The server never reads a tree or runs
a check itself, so each run starts from the state a fresh process starts from, but for
the parse store of the project last worked on, which the server loads between runs and a
run takes only while it is what the cache holds on disk (cache.keep_warm).

Trust: the socket lives in a folder of the user's cache that k8slb made (mode 0700, a real
folder, the user's own), never in a scanned tree. Its name is a fingerprint of k8slb's
code and of the interpreter's start-up state (executable, version, module path, flags,
warning options, file name encoding), so a caller is only ever served by a server that
would have run it the same way; anything else, and the caller runs itself. The server
serves only its own user (the peer's credentials, where the system gives them).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import sys
import time

from k8slb.core.home import own_folders, user_cache_dir
from k8slb.run.fingerprint import code_fingerprint, package_folders

TYPE_CHECKING = False  # typing is not imported: this module is the first `k8slb` loads
if TYPE_CHECKING:
    import socket
    from collections.abc import Callable
    from typing import Any, NoReturn

    # The command line a server runs: its arguments in, its exit status out (cli.served_run).
    Command = Callable[[list[str]], int]

NO_SERVER_ENV = "K8SLB_NO_SERVER"  # set (not empty): every run is made by its own process
# `auto`: a run that finds no server starts one for the runs after it (pre-commit installs
# k8slb in an environment of its own, whose server only its runs can start)
SERVER_ENV = "K8SLB_SERVER"
FOLDER = "server"
DEFAULT_IDLE_MINUTES = 60.0
_MAX_ADDRESS = 100  # bytes: a Unix socket's path is limited (108 on Linux, 104 elsewhere)
_MAX_REQUEST = 1 << 20  # the environment of a caller fits many times over
_STREAMS = 3  # stdin, stdout, stderr: passed as they are
_FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")  # what a terminal or a CI sends
_INT = struct.Struct("!i")
# A caller waits this long for the server to take its run (it only forks): past it, the
# caller runs itself, and a child forked later finds the caller gone and ends.
_TAKE_SECONDS = 10.0
# `server status`, `stop` and `start` wait this long for the server's answer: nothing runs
# in their stead, so a server slow to answer on a busy machine is waited for, not taken
# for none (a stop that gave up would leave it running and say none was).
_ASK_SECONDS = 120.0
# How often a waiting server looks whether it is idle, replaced, or has a newer parse
# store to load (a few file stats).
_TICK = 2.0


class ServerError(Exception):
    """The server cannot be started or asked."""


# -- where -----------------------------------------------------------------------------------


def server_key() -> str:
    """Who may serve whom: k8slb's code, and what the interpreter fixed at its start."""
    import hashlib

    from k8slb import __version__

    state = (
        __version__,
        code_fingerprint(),
        sys.executable,
        sys.version,
        sys.path[1:],  # [0] is the script's folder (or the current one, for -m)
        repr(sys.flags),
        sys.warnoptions,
        sys._xoptions,
        sys.getfilesystemencoding(),
        sys.getfilesystemencodeerrors(),
    )
    return hashlib.blake2b(repr(state).encode(), digest_size=10).hexdigest()


def server_folder(*, create: bool = False) -> str | None:
    """The folder of the user's servers: the cache base and `server` below it, each a real
    folder of the user's (made, mode 0700, when `create`); None otherwise."""
    base = user_cache_dir()
    if base is None:
        return None
    folder = os.path.join(base, FOLDER)
    return folder if own_folders((base, folder), create=create) else None


def address(folder: str) -> str:
    return os.path.join(folder, f"{server_key()}.sock")


# -- the caller ------------------------------------------------------------------------------


def served(argv: list[str], command: Command) -> int | None:
    """Have the user's server run this command line; its exit status, or None when no
    server can (none running, one of other code or another interpreter state, a stream
    that cannot be passed): the caller then runs it itself. `k8slb server ...` is never
    served. `command` is what a server this call starts (K8SLB_SERVER=auto) runs."""
    if os.environ.get(NO_SERVER_ENV) or argv[:1] == [FOLDER]:
        return None
    auto = os.environ.get(SERVER_ENV) == "auto"
    folder = server_folder(create=auto)  # the usual case ends here: no server ever started
    if folder is None:
        return None
    streams = _describe_streams()
    try:
        cwd = os.getcwd()
    except OSError:  # a working folder that was removed: the run reports it itself
        return None
    if streams is None:
        return None
    where = address(folder)
    if not auto and not os.path.exists(where):
        return None  # none for this k8slb: the rest (the socket module) is not even loaded
    import socket

    request = {
        "op": "run",
        "argv": argv,
        "cwd": cwd,
        "env": dict(os.environ),
        "umask": _umask(),
        "limits": _limits(),
        "streams": streams,
    }
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with connection:
        try:
            child = _hand_over(connection, where, request)
        except (FileNotFoundError, ConnectionRefusedError):  # none runs (or one died)
            if auto:
                _start_in_background(where, command)
            return None
        except OSError:
            return None
        if child is None:
            return None  # refused, or a server that went away: nothing has run
        forwarded = _forward_signals(child)
        try:
            ended = _receive(connection, 1 + _INT.size)
        except OSError:
            ended = b""
    if ended[:1] == b"X" and len(ended) == 1 + _INT.size:
        return int(_INT.unpack(ended[1:])[0])
    if forwarded:  # the run died of the signal the caller got: so does the caller
        signal.signal(forwarded[-1], signal.SIG_DFL)
        os.kill(os.getpid(), forwarded[-1])
    sys.stderr.write("k8slb: error: the k8slb server's run ended without an exit status\n")
    sys.stderr.flush()
    return 2


def _hand_over(connection: socket.socket, where: str, request: dict[str, Any]) -> int | None:
    """Pass the run to the server; the child that makes it, once told to go (from then on
    the run is the child's and never made twice), or None when the server did not take it."""
    connection.settimeout(_TAKE_SECONDS)
    connection.connect(where)
    if not _same_user(connection):
        return None
    _send(connection, request, list(range(_STREAMS)))
    taken = _receive(connection, 1 + _INT.size)
    if taken[:1] != b"P" or len(taken) != 1 + _INT.size:
        return None
    connection.sendall(b"G")
    connection.settimeout(None)
    return int(_INT.unpack(taken[1:])[0])


def _describe_streams() -> list[list[Any]] | None:
    """How the caller's interpreter set up its standard streams, for the run to set up the
    same; None when one is missing or not the interpreter's own kind."""
    import io

    described: list[list[Any]] = []
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if not isinstance(stream, io.TextIOWrapper):
            return None
        described.append(
            [stream.encoding, stream.errors, stream.line_buffering, stream.write_through]
        )
    return described


def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _limits() -> dict[str, Any]:
    """The caller's resource limits (`ulimit`) and scheduling priority (`nice`), which
    the run takes (or, when it cannot, the caller runs itself)."""
    import resource

    limits: dict[str, Any] = {
        name: list(resource.getrlimit(getattr(resource, name)))
        for name in dir(resource)
        if name.startswith("RLIMIT_")
    }
    limits["nice"] = os.getpriority(os.PRIO_PROCESS, 0)
    return limits


def _forward_signals(child: int) -> list[int]:
    """Send what the caller gets (Ctrl-C, a CI's cancel, Ctrl-Z) to the run's process group,
    as a terminal sends it to every process of a run of its own; the signals forwarded
    (those that may end it)."""
    forwarded: list[int] = []

    def send(number: int) -> None:
        try:
            os.killpg(child, number)
        except OSError:  # its own group not made yet, or gone
            with contextlib.suppress(OSError):
                os.kill(child, number)

    def forward(number: int, _frame: object) -> None:
        forwarded.append(number)
        send(number)

    def suspend(number: int, _frame: object) -> None:
        """Ctrl-Z: the run stops, then the caller, as a shell's job; `fg` goes on with both."""
        send(signal.SIGSTOP)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)  # stopped here until continued
        signal.signal(number, suspend)
        send(signal.SIGCONT)

    for name in _FORWARDED:
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, forward)
    if hasattr(signal, "SIGTSTP"):
        signal.signal(signal.SIGTSTP, suspend)
    return forwarded


# -- the wire ---------------------------------------------------------------------------------


def _send(connection: socket.socket, message: dict[str, Any], fds: list[int]) -> None:
    """A request: its length, then JSON (ASCII: a name that is not UTF-8 travels as the
    escapes of its surrogates); the file descriptors go with its first bytes."""
    import socket

    body = json.dumps(message).encode("ascii")
    data = _INT.pack(len(body)) + body
    if not fds:
        connection.sendall(data)
        return
    sent = socket.send_fds(connection, [data], fds)
    if sent < len(data):  # not an empty send: the server may have answered and hung up
        connection.sendall(data[sent:])


def _receive(connection: socket.socket, size: int) -> bytes:
    """`size` bytes, or fewer when the other end closes first."""
    data = b""
    while len(data) < size:
        more = connection.recv(size - len(data))
        if not more:
            break
        data += more
    return data


def _read_request(connection: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """A request and the descriptors that came with it (the caller closes them)."""
    import socket

    data, fds, _, _ = socket.recv_fds(connection, 65536, _STREAMS)
    try:
        if len(data) < _INT.size:
            data += _receive(connection, _INT.size - len(data))
        if len(data) < _INT.size:
            raise ValueError("a request cut short")
        size = _INT.unpack(data[: _INT.size])[0]
        if not 0 < size <= _MAX_REQUEST:
            raise ValueError("a request of no sensible size")
        data = data[_INT.size :]
        data += _receive(connection, size - len(data))
        message = json.loads(data[:size].decode("ascii"))
        if not isinstance(message, dict):
            raise ValueError("a request that is not an object")
        return message, fds
    except BaseException:
        _close_all(fds)
        raise


def _same_user(connection: socket.socket) -> bool:
    """Whether the other end runs as this user (Linux tells; elsewhere the folder's mode
    is what keeps others out)."""
    import socket

    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:
        return True
    credentials = connection.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return bool(struct.unpack("3i", credentials)[1] == os.getuid())


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def ask(op: str) -> dict[str, Any] | None:
    """The answer of this k8slb's server to `status` or `stop`; None when none runs."""
    import socket

    folder = server_folder()
    if folder is None:
        return None
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.settimeout(_ASK_SECONDS)
        connection.connect(address(folder))
        if not _same_user(connection):
            return None
        _send(connection, {"op": op}, [])
        answer = json.loads(_receive(connection, _MAX_REQUEST).decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        connection.close()
    return answer if isinstance(answer, dict) else None


# -- the server -------------------------------------------------------------------------------


def start(idle_minutes: float, command: Command) -> dict[str, Any]:
    """Start this k8slb's server for the user (unless one runs): its status. It stops
    after `idle_minutes` without a run (0: never) or on `k8slb server stop`; each run is
    `command` made in a fork of it."""
    import socket

    if not hasattr(os, "fork") or not hasattr(socket, "send_fds"):
        raise ServerError("a server needs fork() and descriptor passing, which this system lacks")
    running = ask("status")
    if running is not None:
        return {**running, "already": True}
    folder = server_folder(create=True)
    if folder is None:
        raise ServerError(
            f"{user_cache_dir()}: no folder of k8slb's own there to keep the server's socket "
            "in (it must be a real folder, not a link, owned by you)"
        )
    where = address(folder)
    if len(os.fsencode(where)) > _MAX_ADDRESS:
        raise ServerError(
            f"{where}: too long a path for a socket; set K8SLB_CACHE_DIR to a shorter folder"
        )
    ready, report = os.pipe()
    _detached(where, idle_minutes * 60, report, ready, command)
    os.close(report)
    with os.fdopen(ready, "rb") as said:
        words = said.read().decode("utf-8", "replace")
    if not words.startswith("ready"):
        raise ServerError(words or "the server ended before it was ready")
    status = ask("status")
    if status is None:
        raise ServerError("the server started but does not answer")
    return status


def _start_in_background(where: str, command: Command) -> None:
    """Start a server for the runs to come (K8SLB_SERVER=auto), not waiting for it: this
    run is made by its own process meanwhile. Two runs starting one each leave one: the
    later takes the address, and the other, no longer at it, stops."""
    if len(os.fsencode(where)) > _MAX_ADDRESS or not hasattr(os, "fork"):
        return
    with contextlib.suppress(OSError):
        _detached(where, DEFAULT_IDLE_MINUTES * 60, None, None, command)


def _detached(
    where: str, idle_seconds: float, report: int | None, ready: int | None, command: Command
) -> None:
    """Fork the server: a child in a session of its own forks it (so that it is no session
    leader, and never gets a terminal) and ends, collected here."""
    first = os.fork()
    if first == 0:
        try:
            if ready is not None:
                os.close(ready)
            os.setsid()
            if os.fork() == 0:
                _daemon(where, idle_seconds, report, command)
        finally:
            os._exit(0)
    os.waitpid(first, 0)


def _daemon(where: str, idle_seconds: float, report: int | None, command: Command) -> NoReturn:
    """The server's own process: detached from the caller's folder and streams, k8slb
    imported whole, listening; it says `ready` (or why not) on `report`, when it has one."""
    try:
        os.chdir("/")
        quiet = os.open(os.devnull, os.O_RDWR)
        for stream in range(_STREAMS):
            os.dup2(quiet, stream)
        os.close(quiet)
        # nothing else of the starting process's is held (a pipe it was given would never
        # see its end while the server lives)
        kept = report if report is not None else _STREAMS - 1
        os.closerange(_STREAMS, kept)
        os.closerange(kept + 1, 65536)
        _import_everything()
        listener = _Listener(where)
    except BaseException as error:  # said to the one who started it
        if report is not None:
            os.write(report, f"cannot start the server: {error}".encode())
        os._exit(1)
    if report is not None:
        os.write(report, b"ready")
        os.close(report)
    try:
        _serve(listener, idle_seconds, command)
    finally:
        listener.close()
        os._exit(0)


def _import_everything() -> None:
    """Every module of k8slb (the rules, every report format, the fixer with libcst), and
    what each language readies (the Go grammar): what each run would otherwise load for
    itself, and every pattern those modules hold compiled. Nothing that reads a file or
    depends on the caller is done here."""
    import importlib
    import pkgutil

    from k8slb.languages import LANGUAGES, load

    for prefix, folder in package_folders():
        for module in pkgutil.walk_packages([folder], prefix):
            importlib.import_module(module.name)
    for language in LANGUAGES.values():
        if language.warm:
            load(language.warm)()
    from k8slb.core.regex import compile_waiting

    compile_waiting()  # once, rather than in every run forked


class _Listener:
    """The server's socket at its address. It is bound under a name of its own, then
    renamed into place, so a caller never finds a socket that does not listen yet; a
    server started later takes the address over the same way, and this one, no longer at
    the address (told by the file's identity: a socket's own descriptor does not show it),
    stops."""

    def __init__(self, where: str) -> None:
        import socket

        self.where = where
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        temporary = os.path.join(os.path.dirname(where), f".{os.getpid()}.sock")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        mask = os.umask(0o177)  # the socket itself: the user's alone, like its folder
        try:
            self.socket.bind(temporary)
        finally:
            os.umask(mask)
        self.socket.listen(64)
        os.replace(temporary, where)
        self.identity = self._identity()

    def _identity(self) -> tuple[int, int] | None:
        try:
            status = os.lstat(self.where)
        except OSError:
            return None
        return status.st_dev, status.st_ino

    def is_at_address(self) -> bool:
        return self.identity is not None and self._identity() == self.identity

    def close(self) -> None:
        """Leave the address (unless another server holds it now) and stop listening."""
        if self.is_at_address():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.where)
        self.identity = None
        self.socket.close()


def _serve(listener: _Listener, idle_seconds: float, command: Command) -> None:
    """Take runs until stopped, idle too long, replaced at the address, or until k8slb's code
    changes on disk."""
    started, runs, last = time.time(), 0, time.monotonic()
    tick = min(_TICK, idle_seconds / 2) if idle_seconds else _TICK
    due = time.monotonic()  # the next look around: on time, however busy the server is
    while True:
        _reap()
        if time.monotonic() >= due:
            if idle_seconds and time.monotonic() - last > idle_seconds:
                return
            if not listener.is_at_address():
                return
            if address(os.path.dirname(listener.where)) != listener.where:
                return  # k8slb's code changed on disk: no caller would be served by this one
            _keep_warm(listener)
            due = time.monotonic() + tick
        listener.socket.settimeout(max(0.01, due - time.monotonic()))
        try:
            connection, _ = listener.socket.accept()
        except TimeoutError:
            continue
        except OSError:  # a transient failure (no descriptor left...), unless replaced
            if not listener.is_at_address():
                return
            time.sleep(0.1)
            continue
        with connection:
            connection.settimeout(_TAKE_SECONDS)
            try:
                if not _same_user(connection):
                    continue
                message, fds = _read_request(connection)
            except Exception:  # any process of the user's may connect: garbage is dropped
                continue
            try:
                op = message.get("op")
                if op == "status" or op == "stop":
                    status = {
                        "pid": os.getpid(),
                        "address": listener.where,
                        "started": started,
                        "runs": runs,
                        "idle_timeout_minutes": idle_seconds / 60,
                        "store": _store_held(),
                    }
                    if op == "stop":  # gone from the address before the caller hears so
                        listener.close()
                    connection.sendall(json.dumps(status).encode())
                    if op == "stop":
                        return
                elif op == "run":
                    runs += _fork_run(connection, listener, message, fds, command)
                    last = time.monotonic()  # idle means no run: a status is no run
            except OSError:
                continue
            finally:
                _close_all(fds)


def _keep_warm(listener: _Listener) -> None:
    """Between runs: the parse store of the project worked on last, loaded for the runs to
    come (cache.keep_warm), put off while a run waits; a store that cannot be read is the
    runs' to report, not the server's."""
    import gc
    import select

    from k8slb.run.cache import keep_warm

    def waiting() -> bool:
        return bool(select.select([listener.socket], [], [], 0)[0])

    try:
        dropped = keep_warm(waiting)
    except Exception:  # each run reads the cache again, and says what is wrong
        return
    if dropped:
        gc.collect()  # the garbage collector is off, as in every run: the old store's cycles


def _store_held() -> dict[str, Any] | None:
    """The parse store held for the runs (its cache folder, its parses), if any."""
    from k8slb.run.cache import held_store

    held = held_store()
    return {"folder": str(held[0]), "parses": held[1]} if held is not None else None


def _reap() -> None:
    """Collect the runs that ended (each is the server's child)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _valid_run(message: dict[str, Any], fds: list[int]) -> bool:
    streams = message.get("streams")
    return (
        len(fds) == _STREAMS
        and isinstance(message.get("argv"), list)
        and all(isinstance(word, str) for word in message["argv"])
        and isinstance(message.get("cwd"), str)
        and isinstance(message.get("env"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in message["env"].items())
        and isinstance(message.get("umask"), int)
        and _can_take_limits(message.get("limits"))
        and isinstance(streams, list)
        and len(streams) == _STREAMS
        and all(
            isinstance(s, list)
            and len(s) == 4
            and isinstance(s[0], str)
            and isinstance(s[1], str)
            and all(isinstance(flag, bool) for flag in s[2:])
            for s in streams
        )
    )


def _can_take_limits(limits: object) -> bool:
    """Whether a run can have exactly the caller's limits and priority: a process may lower
    its own, never raise them past the server's (the caller then runs itself)."""
    import resource

    if not isinstance(limits, dict) or not isinstance(limits.get("nice"), int):
        return False
    if limits["nice"] < os.getpriority(os.PRIO_PROCESS, 0):
        return False
    for name in dir(resource):
        if not name.startswith("RLIMIT_"):
            continue
        wanted = limits.get(name)
        if not (isinstance(wanted, list) and len(wanted) == 2):
            return False
        if not all(isinstance(value, int) for value in wanted):
            return False
        hard = resource.getrlimit(getattr(resource, name))[1]
        if hard != resource.RLIM_INFINITY and (
            wanted[1] == resource.RLIM_INFINITY or wanted[1] > hard
        ):
            return False
    return True


def _take_limits(limits: dict[str, Any]) -> None:
    import resource

    for name, wanted in limits.items():
        if not name.startswith("RLIMIT_"):
            continue
        kind = getattr(resource, name)
        if resource.getrlimit(kind) != tuple(wanted):
            resource.setrlimit(kind, tuple(wanted))
    if os.getpriority(os.PRIO_PROCESS, 0) != limits["nice"]:
        os.setpriority(os.PRIO_PROCESS, 0, limits["nice"])


def _fork_run(
    connection: socket.socket,
    listener: _Listener,
    message: dict[str, Any],
    fds: list[int],
    command: Command,
) -> int:
    """Fork the run a caller asked for; 1 when it was taken, 0 when refused."""
    if not _valid_run(message, fds):
        connection.sendall(b"R")
        return 0
    child = os.fork()
    if child == 0:
        listener.socket.close()  # the child's copy; the address stays the server's
        _run(connection, message, fds, command)
    connection.sendall(b"P" + _INT.pack(child))
    return 1


def _run(
    connection: socket.socket, message: dict[str, Any], fds: list[int], command: Command
) -> NoReturn:
    """The forked child: wait for the caller's go, become the caller, run the command
    line (`command`: it writes everything before it returns), send the exit status."""
    code = 2
    try:
        os.setpgid(0, 0)  # a group of its own, which the caller's signals go to
        _heed_forwarded_signals()
        connection.settimeout(None)
        if _receive(connection, 1) != b"G":
            os._exit(0)  # the caller gave up and runs itself
        _become_caller(message, fds)
        code = command(message["argv"])
    except Exception as error:  # the caller's folder is gone, a stream it described...
        os.write(2, f"k8slb: error: the k8slb server's run: {error}\n".encode(errors="replace"))
    finally:
        try:
            connection.sendall(b"X" + _INT.pack(code))
        finally:
            os._exit(code)


def _heed_forwarded_signals() -> None:
    """The signals a caller forwards end the run as they end a process of its own: a server
    started in the background of a script inherits Ctrl-C ignored, and a run that kept that
    would wait on its input for ever."""
    for name in _FORWARDED:
        number = getattr(signal, name, None)
        if number is not None:
            handler = signal.default_int_handler if name == "SIGINT" else signal.SIG_DFL
            signal.signal(number, handler)


def _become_caller(message: dict[str, Any], fds: list[int]) -> None:
    """Take the caller's streams, folder, environment and mask, and standard streams set
    up as its interpreter set up its own."""
    import io

    for number, fd in enumerate(fds):
        os.dup2(fd, number)
    _close_all([fd for fd in fds if fd >= _STREAMS])
    os.environ.clear()
    os.environ.update(message["env"])
    time.tzset()  # the caller's TZ: "today" is the caller's (exemptions expire by it)
    os.umask(message["umask"])
    _take_limits(message["limits"])
    made = []
    for number, (encoding, errors, line_buffering, write_through) in enumerate(message["streams"]):
        raw = io.FileIO(number, "r" if number == 0 else "w", closefd=False)
        buffered = io.BufferedReader(raw) if number == 0 else io.BufferedWriter(raw)
        made.append(
            io.TextIOWrapper(
                buffered,
                encoding=encoding,
                errors=errors,
                newline="\n",  # as the interpreter makes them on POSIX
                line_buffering=line_buffering,
                write_through=write_through,
            )
        )
    for name, stream in zip(("stdin", "stdout", "stderr"), made, strict=True):
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)  # what the terminal's size is asked of
    sys.argv = ["k8slb", *message["argv"]]
    os.chdir(message["cwd"])
