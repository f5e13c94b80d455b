"""`k8slb server`: while it runs, every `k8slb` command is made by a fork of it, and must
print, write and exit exactly as a process of its own would. Each test starts a real
server (in the test's own cache folder) and runs `python -m k8slb` as a user would."""

from __future__ import annotations

import contextlib
import os
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading.sources import discover
from k8slb.report import json as json_report
from k8slb.rules import ALL_RULES
from k8slb.run import cache as cache_module
from k8slb.run import run_memory
from k8slb.run.cache import Cache
from k8slb.run.engine import run
from k8slb.run.settings import Settings

from .helpers import FIXTURES

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="a server needs fork()")

DEMO = FIXTURES / "demo"


def k8slb(
    *args: str,
    served: bool = True,
    cwd: Path = DEMO,
    stdin: bytes = b"",
    env: Mapping[str, str] | None = None,
    python: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environ, **(env or {})}
    environment.pop("K8SLB_NO_SERVER", None)
    if not served:
        environment["K8SLB_NO_SERVER"] = "1"
    return subprocess.run(
        [sys.executable, *python, "-m", "k8slb", *args],
        cwd=cwd,
        env=environment,
        input=stdin,
        capture_output=True,
        timeout=120,
        check=False,
    )


def outcome(done: subprocess.CompletedProcess[bytes]) -> tuple[bytes, bytes, int]:
    """What a user sees of a run: its output, its errors, its exit status."""
    return done.stdout, done.stderr, done.returncode


def runs_made() -> int | None:
    """How many runs the server made, or None when none is running."""
    said = k8slb("server", "status").stdout.decode()
    if "running" not in said or "No k8slb server" in said:
        return None
    return int(said.rpartition("; ")[2].split()[0])


def until(condition: Callable[[], bool], seconds: float = 30) -> bool:
    """Whether `condition` comes true within `seconds` (asked every 0.1 s)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    return condition()


def server_pid() -> int:
    said = k8slb("server", "status").stdout.decode()
    return int(said.split("(pid ")[1].split(")")[0])


@pytest.fixture
def server() -> Iterator[None]:
    started = k8slb("server", "start", "--idle-timeout", "5")
    assert started.returncode == 0, started.stderr
    pid = server_pid()
    yield
    k8slb("server", "stop")
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)  # stopped already, unless a test broke it


def same_as_its_own_process(*args: str, stdin: bytes = b"", cwd: Path = DEMO) -> int:
    served = k8slb(*args, stdin=stdin, cwd=cwd)
    alone = k8slb(*args, stdin=stdin, cwd=cwd, served=False)
    assert outcome(served) == outcome(alone), args
    return served.returncode


def test_a_served_run_prints_and_exits_as_a_process_of_its_own(server: None) -> None:
    before = runs_made()
    codes = [
        same_as_its_own_process("check", "bad"),
        same_as_its_own_process("check", "--format", "json", "bad"),
        same_as_its_own_process("check", "good"),
        same_as_its_own_process("--version"),
        same_as_its_own_process("rules"),
        same_as_its_own_process("explain", "KLB101"),
        same_as_its_own_process("check", "--config", "missing.toml", "bad"),
        same_as_its_own_process("check", "--no-such-option"),
        same_as_its_own_process("check", "-", stdin=(DEMO / "bad" / "backend.yaml").read_bytes()),
    ]
    assert codes == [1, 1, 0, 0, 0, 0, 2, 2, 1]
    assert runs_made() == (before or 0) + len(codes)  # each one, made by the server


def test_the_run_is_the_callers_own_folder_environment_and_streams(server: None) -> None:
    coloured = k8slb("check", "bad/backend.yaml", env={"FORCE_COLOR": "1"})
    plain = k8slb("check", "bad/backend.yaml", env={"NO_COLOR": "1"})
    assert b"\x1b[" in coloured.stdout and b"\x1b[" not in plain.stdout
    assert b"bad/backend.yaml" in plain.stdout  # the path as named, from the caller's folder
    alone = k8slb("check", "bad/backend.yaml", env={"FORCE_COLOR": "1"}, served=False)
    assert coloured.stdout == alone.stdout


def test_a_served_hook_takes_the_parse_store_the_server_loaded(
    server: None, tmp_path: Path
) -> None:
    tree = tmp_path / "repo"
    shutil.copytree(DEMO, tree)
    (tree / ".git").mkdir()  # a project: the hook's context is the repository
    assert k8slb("check", ".", cwd=tree).returncode == 1  # the cache written
    assert until(lambda: b"holding the parse store" in k8slb("server", "status").stdout)
    backend = tree / "bad" / "backend.yaml"
    backend.write_text(backend.read_text() + "# changed\n")
    hook = ("check", "--context", ".", "bad/backend.yaml")
    served = k8slb(*hook, cwd=tree)
    alone = k8slb(*hook, cwd=tree, served=False)
    assert outcome(served) == outcome(alone)
    assert b"KLB401" in served.stdout


@pytest.mark.skipif(not Path("/proc/self/limits").is_file(), reason="reads /proc")
def test_the_run_has_the_callers_limits_or_the_caller_runs_itself(server: None) -> None:
    def limited(files: int) -> Callable[[], None]:
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    before = runs_made() or 0
    caller = subprocess.Popen(
        [sys.executable, "-m", "k8slb", "check", "-"],  # waits on stdin, to be looked at
        cwd=DEMO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=limited(200),  # lower than the server's: the run takes it
    )
    try:
        assert until(lambda: runs_made() != before)
        pid = server_pid()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        limits = Path(f"/proc/{children[0]}/limits").read_text()
        assert re.search(r"Max open files\s+200\s+200\s", limits), limits
        _, stderr = caller.communicate((DEMO / "good" / "backend.yaml").read_bytes(), timeout=60)
    finally:
        caller.kill()
    assert caller.returncode == 0, stderr

    higher = resource.getrlimit(resource.RLIMIT_NOFILE)[1] + 1  # past the server's: refused
    current = runs_made()
    try:
        bigger = subprocess.run(
            [sys.executable, "-m", "k8slb", "--version"],
            capture_output=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (higher, higher)),
            check=False,
        )
    except subprocess.SubprocessError:  # raising a hard limit takes a privilege: not here
        return
    assert bigger.returncode == 0 and b"version" in bigger.stdout
    assert runs_made() == current  # ran by itself


def test_a_fix_through_the_server_writes_what_its_own_process_writes(
    server: None, tmp_path: Path
) -> None:
    for name in ("served", "alone"):
        shutil.copytree(DEMO / "bad", tmp_path / name)
    served = k8slb("fix", "--unsafe-fixes", ".", cwd=tmp_path / "served")
    alone = k8slb("fix", "--unsafe-fixes", ".", cwd=tmp_path / "alone", served=False)
    assert outcome(served) == outcome(alone)
    for path in sorted((tmp_path / "alone").rglob("*")):
        twin = tmp_path / "served" / path.relative_to(tmp_path / "alone")
        assert path.is_dir() or twin.read_bytes() == path.read_bytes(), path
    assert (tmp_path / "alone" / "backend.yaml").read_bytes() != (
        DEMO / "bad" / "backend.yaml"
    ).read_bytes()


def test_ctrl_c_reaches_the_served_run(server: None) -> None:
    before = runs_made() or 0
    caller = subprocess.Popen(
        [sys.executable, "-m", "k8slb", "check", "-"],  # reads stdin, which never ends
        cwd=DEMO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert until(lambda: runs_made() != before and forwarding(caller.pid))
        time.sleep(1)  # the run is reading its input
        caller.send_signal(signal.SIGINT)
        # stdin stays open until the caller ends: closed at once (as communicate() does),
        # a run the signal reaches late, on a busy machine, would read its end and pass
        caller.wait(timeout=30)
        assert caller.stderr is not None
        stderr = caller.stderr.read()
    finally:
        caller.kill()
    assert caller.returncode == 1
    assert b"Aborted!" in stderr  # click's own answer to Ctrl-C, in the run


def test_ctrl_c_reaches_a_run_of_a_server_started_with_ctrl_c_ignored() -> None:
    # a script's background job (`k8slb server start &`) starts with SIGINT ignored, and so
    # would every run the server forks; a run heeds what its caller forwards all the same
    ignored = subprocess.run(
        [sys.executable, "-m", "k8slb", "server", "start", "--idle-timeout", "5"],
        cwd=DEMO,
        env={k: v for k, v in os.environ.items() if k != "K8SLB_NO_SERVER"},
        capture_output=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )
    assert ignored.returncode == 0, ignored.stderr
    pid = server_pid()
    try:
        test_ctrl_c_reaches_the_served_run(None)
    finally:
        k8slb("server", "stop")
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def forwarding(caller: int) -> bool:
    """Whether a caller has handed its run over and forwards its signals (it catches
    SIGTSTP then); True where /proc does not tell."""
    status = Path(f"/proc/{caller}/status")
    if not status.is_file():
        return True
    caught = next(line for line in status.read_text().splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTSTP - 1) & 1)


def _state(pid: int) -> str:
    """A process's state letter (`T`: stopped), from /proc."""
    return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads /proc")
def test_ctrl_z_stops_the_run_with_its_caller_and_fg_goes_on(server: None) -> None:
    before = runs_made() or 0
    caller = subprocess.Popen(
        [sys.executable, "-m", "k8slb", "check", "-"],  # waits on stdin
        cwd=DEMO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # a job of its own, as a shell makes one: the system ignores Ctrl-Z in a group
        # left without a parent in its session (the test runner's may be one)
        preexec_fn=os.setpgrp,
    )
    try:
        assert until(lambda: runs_made() != before and forwarding(caller.pid))
        pid = server_pid()
        run = int(Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0])
        caller.send_signal(signal.SIGTSTP)
        assert until(lambda: _state(caller.pid) == "T" and _state(run) == "T")
        caller.send_signal(signal.SIGCONT)
        assert until(lambda: _state(run) != "T")
        _, stderr = caller.communicate((DEMO / "good" / "backend.yaml").read_bytes(), timeout=60)
    finally:
        caller.kill()
    assert caller.returncode == 0, stderr


def test_no_server_is_asked_when_told_not_to_or_by_another_interpreter_state(
    server: None,
) -> None:
    before = runs_made()
    assert k8slb("--version", served=False).returncode == 0
    warned = k8slb("--version", python=("-W", "error"))  # warnings as errors: not the server's
    assert warned.returncode == 0 and b"0." in warned.stdout
    assert runs_made() == before


def test_a_server_folder_that_is_a_link_is_never_used(private_cache: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (private_cache / "server").symlink_to(elsewhere)
    started = k8slb("server", "start")
    assert started.returncode == 2
    assert b"no folder of k8slb's own" in started.stderr
    assert list(elsewhere.iterdir()) == []
    assert k8slb("--version").returncode == 0


def test_garbage_on_the_socket_leaves_the_server_serving(server: None, private_cache: Path) -> None:
    where = str(next((private_cache / "server").glob("*.sock")))
    junk = [b"", b"\x00\x00", b"\x00\x00\x00\x09{]]]]", b"\xff\xff\xff\xff", b"\x00\x00\x00\x02[]"]
    for data in junk:  # each followed by hanging up
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(where)
            connection.sendall(data)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(where)
        request = b'{"op": "run", "argv": ["--version"]}'  # no streams: refused
        connection.sendall(len(request).to_bytes(4, "big") + request)
        assert connection.recv(16) == b"R"
    assert runs_made() == 0
    assert same_as_its_own_process("check", "bad") == 1
    assert runs_made() == 1


def test_a_dead_servers_socket_is_passed_over_and_replaced(server: None) -> None:
    os.kill(server_pid(), signal.SIGKILL)
    time.sleep(0.2)
    assert runs_made() is None
    assert same_as_its_own_process("check", "bad") == 1  # run by itself
    assert k8slb("server", "start", "--idle-timeout", "5").returncode == 0
    assert runs_made() == 0


def test_starting_twice_keeps_the_running_server(server: None) -> None:
    pid = server_pid()
    again = k8slb("server", "start")
    assert again.returncode == 0 and b"already running" in again.stdout
    assert server_pid() == pid


def test_the_server_stops_when_asked_or_idle(private_cache: Path) -> None:
    assert k8slb("server", "start", "--idle-timeout", "0.02").returncode == 0  # 1.2 s
    assert until(lambda: runs_made() is None)
    assert list((private_cache / "server").iterdir()) == []  # its socket removed
    assert k8slb("server", "start").returncode == 0
    stopped = k8slb("server", "stop")
    assert b"stopped" in stopped.stdout
    assert runs_made() is None
    assert list((private_cache / "server").iterdir()) == []
    assert b"No k8slb server was running" in k8slb("server", "stop").stdout


def test_the_server_holds_nothing_of_the_process_that_started_it(private_cache: Path) -> None:
    """A pipe handed to `k8slb server start` (pre-commit's, a CI step's) sees its end once
    the command ends, while the server lives on."""
    read, write = os.pipe()
    try:
        started = subprocess.run(
            [sys.executable, "-m", "k8slb", "server", "start", "--idle-timeout", "1"],
            pass_fds=(write,),
            capture_output=True,
            timeout=60,
            check=False,
        )
        os.close(write)
        assert started.returncode == 0, started.stderr
        ready, _, _ = select.select([read], [], [], 10)
        assert ready and os.read(read, 1) == b""  # the end: nobody holds the pipe open
        assert runs_made() == 0
    finally:
        os.close(read)
        k8slb("server", "stop")


def test_with_k8slb_server_auto_a_run_that_finds_none_starts_one(private_cache: Path) -> None:
    auto = {"K8SLB_SERVER": "auto"}
    alone = k8slb("check", "bad", served=False)
    try:
        first = k8slb("check", "bad", env=auto)  # by itself, starting a server meanwhile
        assert outcome(first) == outcome(alone)
        assert until(lambda: runs_made() is not None)
        assert runs_made() == 0
        second = k8slb("check", "bad", env=auto)
        assert outcome(second) == outcome(alone)
        assert runs_made() == 1  # served
    finally:
        k8slb("server", "stop")


def test_a_server_stops_once_k8slbs_code_changes_on_disk(
    private_cache: Path, tmp_path: Path
) -> None:
    """Its code is k8slb's own modules (test_quick_loop and test_cache_trust hold that the
    fingerprint counts each of them). Touching a real module here would change the code of
    every test running beside this one, so these processes count one more file in it."""
    marker = tmp_path / "module.py"
    marker.write_text("")
    (tmp_path / "sitecustomize.py").write_text(
        "import os\n"
        "from k8slb.run import fingerprint\n"
        "_modules = fingerprint.code_fingerprint\n"
        "def code_fingerprint():\n"
        f"    return _modules() + str(os.stat({str(marker)!r}).st_mtime_ns)\n"
        "fingerprint.code_fingerprint = code_fingerprint\n"
    )
    own_code = {"PYTHONPATH": str(tmp_path)}
    assert k8slb("server", "start", "--idle-timeout", "5", env=own_code).returncode == 0
    said = k8slb("server", "status", env=own_code).stdout.decode()
    pid = int(said.split("(pid ")[1].split(")")[0])
    try:
        status = marker.stat()
        os.utime(marker, ns=(status.st_atime_ns, status.st_mtime_ns + 10**9))
        assert until(lambda: not _alive(pid))
    finally:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_only_the_command_line_starts_a_server() -> None:
    result = CliRunner().invoke(cli, ["server", "start"])  # an embedding program would fork
    assert result.exit_code == 2
    assert "runs only as the k8slb command" in result.output


# -- the parse store a server keeps warm (cache.keep_warm) ------------------------------------


def _report(tree: Path, cache: Cache | None) -> str:
    return json_report.render(run(discover([str(tree)]).sources, Settings(ALL_RULES), cache=cache))


def test_a_run_takes_the_parse_store_a_server_holds_while_it_is_the_one_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_memory, "RACY_NS", 0)  # the tree was just written
    monkeypatch.setattr(cache_module, "_warm", {})  # as a server starting
    tree = tmp_path / "repo"
    shutil.copytree(DEMO, tree)
    _report(tree, Cache(tree))  # the cache written
    assert cache_module.keep_warm(lambda: True) is False  # a run waiting: put off
    assert cache_module._warm == {}
    assert cache_module.keep_warm() is False  # loaded: nothing held before
    unpickled: list[bytes] = []
    original = cache_module.load_data
    monkeypatch.setattr(
        cache_module, "load_data", lambda blob: unpickled.append(blob) or original(blob)
    )
    backend = tree / "bad" / "backend.yaml"
    backend.write_text(backend.read_text() + "# changed\n")
    warm = Cache(tree)
    assert warm._parses  # taken from the server's store: nothing unpickled again
    assert _report(tree, warm) == _report(tree, None)
    stored = {blob for _, _, blob in warm.files.values()}
    assert unpickled and not stored & set(unpickled)  # the run's own files, not a parse

    # that run wrote the cache: the store held is no longer what is on disk
    assert Cache(tree)._parses == {}
    assert cache_module.keep_warm() is True  # the old store let go, the new one loaded
    assert Cache(tree)._parses
    other = tmp_path / "other"
    shutil.copytree(DEMO, other)
    assert Cache(other)._parses == {}  # another project's runs read their own


def test_status_and_stop_wait_for_a_server_slow_to_answer(
    private_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a server busy on a loaded machine answers later than a run waits to be taken: status
    # and stop, which nothing runs in place of, wait for it (a stop that gave up said no
    # server was running, and left it running)
    import socket
    import threading

    from k8slb.interface import server

    monkeypatch.setattr(server, "_TAKE_SECONDS", 0.05)
    folder = server.server_folder(create=True)
    assert folder is not None
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(server.address(folder))
    listener.listen(1)

    def answer_late() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(1024)
            time.sleep(0.5)
            connection.sendall(b'{"pid": 1}')

    answering = threading.Thread(target=answer_late)
    answering.start()
    try:
        assert server.ask("status") == {"pid": 1}
    finally:
        answering.join()
        listener.close()
