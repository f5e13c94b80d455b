"""`k8slb fix` as users run it: what it writes, what it refuses, what it reports, and the
properties every file must keep: nothing to fix means not one byte changes, and fixing
twice is fixing once."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.fixing import write
from k8slb.fixing.fixer import plan
from k8slb.fixing.write import write_all, write_atomically
from k8slb.interface.cli import cli
from k8slb.reading.sources import discover
from k8slb.rules import ALL_RULES
from k8slb.run.settings import Settings

from .helpers import CORPUS, FIXTURES, count_parses

DEMO_BAD = FIXTURES / "demo" / "bad"


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def copy_demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(DEMO_BAD, target)
    return target


def test_fix_applies_safe_fixes_and_reports_what_remains(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    code, out, _ = invoke("fix", str(demo))
    assert code == 1, "unsafe-only findings remain at warning"
    assert out.splitlines()[-1] == (
        "Fixed 4 findings (KLB101, KLB201 ×2, KLB401) in 4 files; also made 1 fix whose finding "
        "remains (KLB101: add the headless twin Service backend-headless); 7 findings remain, "
        "1 of them a fixed finding now at info (4 hidden fixes can be enabled with "
        "--unsafe-fixes)."
    )
    assert "lifecycle:\n            preStop:" in (demo / "backend.yaml").read_text()
    assert "grpc.max_connection_age_ms" in (demo / "server.py").read_text()


def test_the_summary_says_which_remaining_findings_are_fixed_ones_at_a_lower_severity(
    tmp_path: Path,
) -> None:
    """A fixed KLB101 stays at info (the twin is there; clients must dial it): counted in
    both "fixed" and "remain", which add up to more than there were unless it is said."""
    demo = copy_demo(tmp_path)
    before = len(json.loads(invoke("check", "--format", "json", str(demo))[1])["findings"])
    _, out, _ = invoke("fix", "--unsafe-fixes", str(demo))
    said = re.search(r"Fixed (\d+) .*; (\d+) findings remain, (\d+) of them fixed", out)
    assert said, out.splitlines()[-1]
    fixed, remain, still = map(int, said.groups())
    assert fixed + remain - still == before
    after = json.loads(invoke("check", "--format", "json", str(demo))[1])["findings"]
    assert still == sum(1 for f in after if f["rule"] == "KLB101" and f["severity"] == "info")


def test_unsafe_fixes_leave_only_what_needs_a_person(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    code, out, _ = invoke("fix", "--unsafe-fixes", str(demo))
    assert out.splitlines()[-1].startswith("Fixed 9 findings")
    code, out, _ = invoke("check", "--format", "json", str(demo))
    left = {
        (f["rule"], f["severity"], f["path"].rsplit("/", 1)[-1])
        for f in json.loads(out)["findings"]
    }
    assert left == {
        ("KLB101", "info", "backend.yaml"),  # the twins are named
        ("KLB101", "info", "inventory.yaml"),
        ("KLB111", "error", "client.py"),  # which port the client meant is for a person
    }
    assert code == 1


def test_diff_writes_nothing_and_exits_1_when_there_is_something_to_fix(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    before = {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()}
    code, out, err = invoke("fix", "--diff", str(demo))
    assert code == 1
    assert out.startswith(f"--- {demo}/backend.yaml\n+++ {demo}/backend.yaml\n")
    assert "+          lifecycle:" in out
    assert err.strip().startswith("Would fix 4 findings")
    assert {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()} == before
    good = FIXTURES / "demo" / "good"
    assert invoke("fix", "--diff", str(good))[0] == 0


def test_select_limits_the_fixes(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    invoke("fix", "--select", "KLB401", str(demo))
    assert "lifecycle:" in (demo / "backend.yaml").read_text()
    assert "backend-headless" not in (demo / "backend.yaml").read_text()
    assert (demo / "server.py").read_bytes() == (DEMO_BAD / "server.py").read_bytes()


def test_stdin_is_fixed_to_stdout() -> None:
    text = (FIXTURES / "fix" / "prestop-block" / "in.yaml").read_text()
    _, out, err = invoke("fix", "-", "--select", "KLB401", stdin=text)
    assert out == (FIXTURES / "fix" / "prestop-block" / "out.yaml").read_text()
    assert "Fixed 1 finding (KLB401)" in err


def test_a_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "m.yaml"
    target.write_bytes(b"old: 1\n")
    target.write_bytes(b"someone else: 2\n")
    assert write_atomically(target, b"old: 1\n", b"new: 1\n") == (
        "changed on disk since k8slb read it; run k8slb fix again"
    )
    assert target.read_bytes() == b"someone else: 2\n"


def test_writes_are_atomic_and_keep_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "m.yaml"
    target.write_bytes(b"old: 1\n")
    target.chmod(0o640)
    assert write_atomically(target, b"old: 1\n", b"new: 1\n") is None
    assert target.read_bytes() == b"new: 1\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["m.yaml"], "no temporary file left"


def test_a_read_only_file_is_reported_not_written(tmp_path: Path) -> None:
    """Also for root (a CI container), whom the system lets write anything: the mode says."""
    demo = copy_demo(tmp_path)
    (demo / "backend.yaml").chmod(0o444)
    code, _, err = invoke("fix", "--select", "KLB401", str(demo))
    assert code == 2 and "backend.yaml: not written: is read-only" in err
    assert (demo / "backend.yaml").read_bytes() == (DEMO_BAD / "backend.yaml").read_bytes()
    assert stat.S_IMODE((demo / "backend.yaml").stat().st_mode) == 0o444


def test_a_file_with_other_hard_links_is_reported_not_written(tmp_path: Path) -> None:
    """Writing by rename would leave the other names with the old text: the file is left
    whole (the fix is not written in place, where a killed run would leave half a file)."""
    demo = copy_demo(tmp_path)
    other = tmp_path / "backend-copy.yaml"
    os.link(demo / "backend.yaml", other)
    code, _, err = invoke("fix", "--select", "KLB401", str(demo))
    assert code == 2
    assert "backend.yaml: not written: has 1 other hard link(s)" in err
    assert (demo / "backend.yaml").stat().st_ino == other.stat().st_ino
    assert other.read_bytes() == (DEMO_BAD / "backend.yaml").read_bytes()


def test_a_read_only_file_is_refused_even_for_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = copy_demo(tmp_path)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    code, out, err = invoke("fix", "--select", "KLB401", str(demo))
    assert code == 2 and "backend.yaml: not written: is read-only" in err
    assert (
        out.splitlines()[-1] == "Nothing fixed; 1 fix not written (see below); 1 finding remains."
    )
    assert (demo / "backend.yaml").read_bytes() == (DEMO_BAD / "backend.yaml").read_bytes()


def test_a_symlink_is_reported_not_written_through(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    real = tmp_path / "real.yaml"
    shutil.move(demo / "backend.yaml", real)
    (demo / "backend.yaml").symlink_to(real)
    code, _, err = invoke("fix", "--select", "KLB401", str(demo / "backend.yaml"))
    assert code == 2
    assert f"is a symbolic link (to {real}); fix the file it points to" in err
    assert real.read_bytes() == (DEMO_BAD / "backend.yaml").read_bytes()


def _yaml_files() -> list[Path]:
    roots = [FIXTURES] + ([CORPUS] if CORPUS.is_dir() else [])
    return sorted(p for root in roots for p in root.rglob("*") if p.suffix in (".yaml", ".yml"))


@pytest.mark.parametrize("path", _yaml_files(), ids=lambda p: p.name)
def test_no_fix_no_change_and_fixing_twice_is_fixing_once(tmp_path: Path, path: Path) -> None:
    target = tmp_path / path.name
    shutil.copyfile(path, target)
    settings = Settings(rules=ALL_RULES)
    sources = discover([str(target)]).sources
    first = plan(sources, settings, unsafe=True)
    if not any(f.edits for f in first.fixed) and not first.fixed_text:
        assert first.fixed_text == {}
        return
    if target.name in first.fixed_text or str(target) in first.fixed_text:
        target.write_bytes(first.fixed_text[str(target)])
    second = plan(sources, settings, unsafe=True)
    assert second.fixed_text == {}, f"a second fix of {path} still changes it"


def test_klb102_retargets_a_literal_target_and_adds_the_twin(tmp_path: Path) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    (tmp_path / "k8s.yaml").write_text(GRPC_SERVICE + BACKEND)
    (tmp_path / "client.py").write_text(
        'import grpc\n\nchannel = grpc.insecure_channel("backend:50051")\n'
    )
    code, out, _ = invoke("fix", "--unsafe-fixes", "--select", "KLB102", str(tmp_path))
    assert (tmp_path / "client.py").read_text() == (  # at 88 columns, as black writes it
        "import grpc\n\nchannel = grpc.insecure_channel(\n"
        '    "dns:///backend-headless:50051",\n'
        "    options=[\n"
        '        ("grpc.service_config", \'{"loadBalancingConfig": [{"round_robin": {}}]}\'),\n'
        "    ],\n"
        ")\n"
    )
    assert "name: backend-headless" in (tmp_path / "k8s.yaml").read_text()
    assert code == 0 and out.splitlines()[-1].startswith("Fixed 1 finding (KLB102)")


@pytest.mark.parametrize(
    ("lifecycle", "expected"),
    [
        ("lifecycle: {}\n", "lifecycle: {preStop: {sleep: {seconds: 5}}}\n"),
        ("lifecycle:\n", "lifecycle: {preStop: {sleep: {seconds: 5}}}\n"),
        ("lifecycle: ~\n", "lifecycle: {preStop: {sleep: {seconds: 5}}}\n"),
    ],
    ids=["empty-flow", "empty-key", "null"],
)
def test_prestop_goes_into_an_empty_lifecycle(
    tmp_path: Path, lifecycle: str, expected: str
) -> None:
    from k8slb.rulekit.examples import READY, web_deployment

    target = tmp_path / "m.yaml"
    target.write_text(web_deployment(READY + lifecycle))
    invoke("fix", "--select", "KLB401", str(target))
    assert "          " + expected in target.read_text()
    assert invoke("check", "--select", "KLB401", str(target))[0] == 0


def test_findings_in_later_documents_are_not_counted_as_fixed_when_a_twin_shifts_them(
    tmp_path: Path,
) -> None:
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    (tmp_path / "m.yaml").write_text(GRPC_SERVICE + BACKEND)  # KLB302 in document 1
    _, out, _ = invoke("fix", "--select", "KLB101,KLB302", str(tmp_path))
    assert out.splitlines()[-1].startswith("Fixed 1 finding (KLB101) in 1 file;")


def test_a_shared_tcp_probe_is_no_finding_so_no_fix_changes_nothing(tmp_path: Path) -> None:
    from k8slb.rulekit.examples import web_deployment

    probes = (
        "readinessProbe:\n  tcpSocket: {port: http}\nlivenessProbe:\n  tcpSocket: {port: 8080}\n"
    )
    (tmp_path / "m.yaml").write_text(web_deployment(probes))
    report = invoke("check", "--format", "json", "--select", "KLB301", str(tmp_path))[1]
    assert '"findings": []' in report


@pytest.mark.parametrize(
    ("option", "fixed"),
    [
        ('("grpc.lb_policy_name", "roundrobin")', '("grpc.lb_policy_name", "round_robin")'),
        (
            '("grpc.service_config", {"loadBalancingConfig": [{"round_robin": {}}]})',
            """("grpc.service_config", '{"loadBalancingConfig": [{"round_robin": {}}]}')""",
        ),
    ],
    ids=["misspelt-policy", "dict-service-config"],
)
def test_klb108_fixes_the_unambiguous_cases(tmp_path: Path, option: str, fixed: str) -> None:
    source = f'import grpc\n\nchannel = grpc.insecure_channel("a:1", options=[{option}])\n'
    target = tmp_path / "client.py"
    target.write_text(source)
    invoke("fix", "--select", "KLB108", str(target))
    assert target.read_text() == source.replace(option, fixed)
    assert invoke("check", "--select", "KLB108", str(target))[0] == 0


def test_klb404_gives_stop_a_grace_with_unsafe_fixes(tmp_path: Path) -> None:
    from k8slb.rulekit.examples import SIGTERM_HANDLER, grpc_server

    target = tmp_path / "server.py"
    target.write_text(grpc_server(before_wait=SIGTERM_HANDLER.replace("grace=25", "0")))
    invoke("fix", "--select", "KLB404", str(target))
    assert "server.stop(0)" in target.read_text(), "unsafe: not without --unsafe-fixes"
    invoke("fix", "--unsafe-fixes", "--select", "KLB404", str(target))
    assert "server.stop(25)" in target.read_text()


def test_the_compare_and_rename_happen_under_the_folders_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two fix runs at once: the second waits, finds the file changed, and says so,
    instead of overwriting the first run's edits."""
    import fcntl

    from k8slb.fixing import write

    target = tmp_path / "a.yaml"
    target.write_bytes(b"old\n")
    held: list[bool] = []
    replace = os.replace

    def checking_replace(source: str, destination: Path) -> None:
        other = os.open(tmp_path, os.O_RDONLY)
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(other)
        replace(source, destination)

    monkeypatch.setattr(write.os, "replace", checking_replace)
    assert write_atomically(target, b"old\n", b"new\n") is None
    assert held == [True]
    assert write_atomically(target, b"old\n", b"newer\n") == (
        "changed on disk since k8slb read it; run k8slb fix again"
    )
    assert target.read_bytes() == b"new\n"


def _staged(path: Path, content: bytes, mode: int = 0o600) -> Path:
    """A file as k8slb stages a temporary: mkstemp's mode 0600 unless told otherwise."""
    path.write_bytes(content)
    path.chmod(mode)
    return path


def _gone_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # its process id now names no process
    return child.pid


def test_a_temporary_left_by_a_killed_run_is_ignored_and_then_removed(tmp_path: Path) -> None:
    target = tmp_path / "a.yaml"
    target.write_bytes(b"old: 1\n")
    stray = _staged(tmp_path / ".a.yaml.x1y2z3ab.k8slb", b"new: ")  # killed while writing
    keep = tmp_path / ".notes.k8slb"  # not one of k8slb's names
    keep.write_bytes(b"mine")
    assert [s.path for s in discover([str(tmp_path)]).sources] == [str(target)]
    assert write_atomically(target, b"old: 1\n", b"new: 1\n") is None
    assert not stray.exists() and keep.exists()


def test_a_live_runs_temporary_is_left_and_a_dead_ones_removed(tmp_path: Path) -> None:
    """A run stages every file before it takes the folders' locks: another run must not
    take its temporaries for a killed run's."""
    target = tmp_path / "a.yaml"
    target.write_bytes(b"old\n")
    live = _staged(tmp_path / f".a.yaml.{os.getpid()}-x1y2z3ab.k8slb", b"new\n")
    dead = _staged(tmp_path / f".a.yaml.{_gone_pid()}-x1y2z3ab.k8slb", b"new\n")
    assert write_atomically(target, b"old\n", b"new\n") is None
    assert live.exists() and not dead.exists()


def test_a_file_named_like_a_temporary_is_removed_only_when_proven_k8slbs(
    tmp_path: Path,
) -> None:
    """A name proves nothing: a repository may commit `.a.yaml.123-abcdefgh.k8slb`. Only a
    temporary of the file being written, in mkstemp's mode, holding (the start of) the
    same fix, is taken for a killed run's; every other file stays, byte for byte."""
    target = tmp_path / "a.yaml"
    target.write_bytes(b"old\n")
    pid = _gone_pid()
    kept = {
        "committed": _staged(tmp_path / f".a.yaml.{pid}-commitd1.k8slb", b"new\n", 0o644),
        "other text": _staged(tmp_path / f".a.yaml.{pid}-othertx1.k8slb", b"notes\n"),
        "longer": _staged(tmp_path / f".a.yaml.{pid}-longer01.k8slb", b"new\nand more\n"),
        "another file's": _staged(tmp_path / f".b.yaml.{pid}-anothr01.k8slb", b"new\n"),
    }
    linked = _staged(tmp_path / f".a.yaml.{pid}-linked01.k8slb", b"new\n")
    os.link(linked, tmp_path / "elsewhere")
    kept["hard-linked"] = linked
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / f".a.yaml.{pid}-fifo0001.k8slb", 0o600)
        kept["fifo"] = tmp_path / f".a.yaml.{pid}-fifo0001.k8slb"
    before = {why: _identity(path) for why, path in kept.items()}
    proven = _staged(tmp_path / f".a.yaml.{pid}-proven01.k8slb", b"new\n")
    assert write_atomically(target, b"old\n", b"new\n") is None
    assert not proven.exists()
    assert {why: _identity(path) for why, path in kept.items() if path.exists()} == before


def _identity(path: Path) -> tuple[int, int, bytes | None]:
    info = path.lstat()
    return info.st_ino, info.st_mode, path.read_bytes() if stat.S_ISREG(info.st_mode) else None


def test_many_files_are_written_together_and_each_judged_alone(tmp_path: Path) -> None:
    files = [tmp_path / f"d{n % 3}" / f"f{n}.yaml" for n in range(12)]
    for file in files:
        file.parent.mkdir(exist_ok=True)
        file.write_bytes(b"old\n")
    files[4].write_bytes(b"edited meanwhile\n")
    problems = write_all([(file, b"old\n", f"new {n}\n".encode()) for n, file in enumerate(files)])
    assert problems == {files[4]: "changed on disk since k8slb read it; run k8slb fix again"}
    assert [f.read_bytes() for f in files] == [
        b"edited meanwhile\n" if n == 4 else f"new {n}\n".encode() for n in range(12)
    ]
    assert sorted(p.name for p in tmp_path.rglob("*")) == sorted(
        ["d0", "d1", "d2", *(f.name for f in files)]
    ), "no temporary file left"


def test_nothing_is_replaced_when_the_new_bytes_cannot_be_flushed_to_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = [tmp_path / f"f{n}.yaml" for n in range(3)]
    for file in files:
        file.write_bytes(b"old\n")

    def failing(temporaries: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(write, "_flush", failing)
    problems = write_all([(file, b"old\n", b"new\n") for file in files])
    assert problems == dict.fromkeys(files, "cannot be written: Input/output error")
    assert [f.read_bytes() for f in files] == [b"old\n"] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f0.yaml", "f1.yaml", "f2.yaml"]


GRACE_5 = FIXTURES / "demo" / "bad" / "backend.yaml"


def _short_grace(tmp_path: Path) -> Path:
    text = GRACE_5.read_text()
    anchor = "      containers:\n"
    assert anchor in text
    target = tmp_path / "backend.yaml"
    target.write_text(text.replace(anchor, "      terminationGracePeriodSeconds: 5\n" + anchor, 1))
    return target


def test_a_pause_that_would_outlast_the_grace_raises_it_in_the_same_fix(tmp_path: Path) -> None:
    """`--select KLB401` alone leaves no KLB402 behind, and the summary says what else
    the fix changed."""
    target = _short_grace(tmp_path)
    _, out, _ = invoke("fix", "--isolated", "--select", "KLB401", str(target))
    assert "terminationGracePeriodSeconds: 30" in target.read_text()
    assert out.splitlines()[-1].startswith(
        "Fixed 1 finding (KLB401; with them: terminationGracePeriodSeconds raised) in 1 file"
    )
    check, after, _ = invoke("check", "--isolated", "--no-cache", "--select", "KLB402", str(target))
    assert check == 0, after


def test_show_fixes_lists_each_fix_with_what_it_changed(tmp_path: Path) -> None:
    target = _short_grace(tmp_path)
    _, out, _ = invoke("fix", "--isolated", "--show-fixes", "--select", "KLB401", str(target))
    assert (
        f"  {target}:23:17: KLB401 add lifecycle.preStop.sleep (5 s) and raise "
        "terminationGracePeriodSeconds 5 -> 30" in out
    )


def test_a_fix_that_could_not_be_written_is_not_counted_as_made(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    shutil.copy(GRACE_5, real)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    code, out, err = invoke("fix", "--isolated", str(link))
    assert code == 2
    assert out.splitlines()[-1].startswith("Nothing fixed; 2 fixes not written (see below)")
    assert "is a symbolic link" in err
    assert real.read_bytes() == GRACE_5.read_bytes()


def test_fix_quiet_prints_nothing_but_errors(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    code, out, err = invoke("fix", "--isolated", "-q", str(demo))
    assert (code, out, err) == (1, "", "")


def test_check_fix_is_fix(tmp_path: Path) -> None:
    one, two = copy_demo(tmp_path / "a"), copy_demo(tmp_path / "b")
    fixed = invoke("fix", str(one))
    checked = invoke("check", "--fix", str(two))
    assert checked[0] == fixed[0] and checked[1].replace(str(two), "X") == fixed[1].replace(
        str(one), "X"
    )
    assert (two / "backend.yaml").read_bytes() == (one / "backend.yaml").read_bytes()
    assert invoke("check", "--fix", "--format", "json", str(two))[0] == 2


def test_the_fix_hook_says_what_it_changed_and_not_the_findings(tmp_path: Path) -> None:
    demo = copy_demo(tmp_path)
    code, out, _ = invoke("fix", "--quiet", "--show-fixes", "--exit-non-zero-on-fix", str(demo))
    assert code == 1
    heading, *lines = out.strip().splitlines()  # as pre-commit shows it: stripped
    assert heading == "Fixes made:"
    assert lines and all(re.match(r"  \S+:\d+:\d+: KLB\d+ ", line) for line in lines), lines
    assert any("KLB401 add lifecycle.preStop.sleep (5 s)" in line for line in lines)


def test_each_yaml_text_is_composed_once_across_the_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check, the read-back of each edit (before and after) and the next pass's check
    share one composition of each text: the fixer's cost stays near the check's."""
    from collections import Counter

    from k8slb.reading import yamlcompose

    for team in range(3):  # more files than the few texts compose() remembers by default
        shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / f"team-{team}")
    composed: Counter[str] = Counter()
    original = yamlcompose._compose

    def counting(text: str, pure: bool, line_offset: int = 0) -> yamlcompose.ComposeResult:
        composed[text] += 1
        return original(text, pure, line_offset)

    monkeypatch.setattr(yamlcompose, "_compose", counting)
    outcome = plan(discover([str(tmp_path)]).sources, Settings(rules=ALL_RULES), unsafe=True)
    assert outcome.fixed_text, "the demo has YAML to fix"
    assert max(composed.values()) == 1, [t[:60] for t, n in composed.items() if n > 1]
    assert not yamlcompose._COMPOSED, "and lets them go after"


def test_fix_after_check_takes_the_checked_result_and_leaves_its_own_for_the_next_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`k8slb check`, then `k8slb fix`: the fix's first pass is the check's result, so
    only the files it edits are parsed; the check that follows the fix finds the fixed
    text's result and parses nothing. What is written and said is what a fix without the
    cache writes and says."""
    demo, plain = copy_demo(tmp_path), copy_demo(tmp_path / "plain")
    invoke("check", str(demo))
    from k8slb.fixing import fixer

    parsed = count_parses(monkeypatch, fixer)  # the fixer reads its own YAML edits back
    fixed = invoke("fix", "--unsafe-fixes", "-j", "1", str(demo))  # parsed here, to be counted
    original = _files(DEMO_BAD)
    edited = {str(demo / name) for name, data in _files(demo).items() if data != original[name]}
    assert sorted(parsed) == sorted(edited), "each edited file parsed once, and no other file"
    parsed.clear()
    after = invoke("check", "--format", "json", str(demo))
    assert parsed == [], "the fixed text's result was kept"
    assert invoke("fix", "--unsafe-fixes", "--no-cache", str(plain)) == tuple(
        part.replace(str(demo), str(plain)) if isinstance(part, str) else part for part in fixed
    )
    assert _files(plain) == _files(demo)
    assert after == invoke("check", "--format", "json", "--no-cache", str(demo))


def _files(tree: Path) -> dict[Path, bytes]:
    return {p.relative_to(tree): p.read_bytes() for p in tree.rglob("*") if p.is_file()}


def test_a_fix_shown_as_a_diff_leaves_the_next_check_of_the_unchanged_files_right(
    tmp_path: Path,
) -> None:
    """The cache is keyed on bytes: the result of text that was never written is never
    taken for the files on disk."""
    demo = copy_demo(tmp_path)
    before = invoke("check", "--format", "json", "--no-cache", str(demo))
    assert invoke("fix", "--diff", "--unsafe-fixes", str(demo))[0] == 1
    assert invoke("check", "--format", "json", str(demo)) == before


def _fix_process(tree: Path, *options: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "k8slb", "fix", "--isolated", "--no-cache", *options]
    return subprocess.run([*command, str(tree)], capture_output=True, text=True, check=False)


def test_the_summary_names_a_few_fixes_whose_finding_remains_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    """On a large tree the summary stays one readable line: the findings themselves are
    listed above it."""
    for copy in range(5):
        shutil.copytree(DEMO_BAD, tmp_path / f"team-{copy}" / "demo")
    _, out, _ = invoke("fix", "--isolated", str(tmp_path))
    assert (
        "also made 5 fixes whose finding remains (KLB101: add the headless twin Service "
        "backend-headless, KLB101: add the headless twin Service backend-headless, KLB101: add "
        "the headless twin Service backend-headless and 2 more)"
    ) in out.splitlines()[-1]


def test_files_fixed_in_several_processes_are_fixed_as_in_one(tmp_path: Path) -> None:
    """Above PARALLEL_MIN_EDITS files, the edits are made in forked processes: the files
    written and the report are those of a one-process fix."""
    from k8slb.fixing.fixer import PARALLEL_MIN_EDITS

    trees = {jobs: tmp_path / f"j{jobs}" for jobs in ("1", "2")}
    for tree in trees.values():
        for copy in range(12):
            shutil.copytree(DEMO_BAD, tree / f"team-{copy}")
    one = _fix_process(trees["1"], "--unsafe-fixes", "-j", "1")
    two = _fix_process(trees["2"], "--unsafe-fixes", "-j", "2")
    assert one.returncode == two.returncode == 1, two.stderr
    assert one.stdout.replace(str(trees["1"]), "TREE") == two.stdout.replace(
        str(trees["2"]), "TREE"
    )
    assert _files(trees["1"]) == _files(trees["2"])
    original = _files(DEMO_BAD)
    changed = [p for p, data in _files(trees["2"]).items() if data != original[Path(*p.parts[1:])]]
    assert len(changed) >= PARALLEL_MIN_EDITS


CRASHING_FIXER = """
import os, signal, sys
from k8slb.interface import cli
from k8slb.fixing import fixer
parent, original, marker = os.getpid(), fixer.apply_edits, sys.argv[2]
def crashing(data, edits):
    path = edits[0].path
    if os.getpid() != parent:
        if not os.path.exists(marker):  # the first file a child is to fix
            with open(marker, "w") as handle:
                handle.write(path)
        if open(marker).read() == path:
            os.kill(os.getpid(), signal.SIGSEGV)  # what a native stack overflow does
    return original(data, edits)
fixer.apply_edits = crashing
sys.argv = ["k8slb", "fix", "--isolated", "--no-cache", "--unsafe-fixes", "-j", "2", sys.argv[1]]
cli.main()
"""


def test_a_fixer_process_that_dies_leaves_its_file_alone_and_fixes_the_others(
    tmp_path: Path,
) -> None:
    """Whatever the file, and in every pass after: another finding's fix that would edit
    it too is not made (it would be made in this process, whose crash would end the run)."""
    from k8slb.fixing.fixer import PARALLEL_MIN_EDITS

    tree, marker = tmp_path / "tree", tmp_path / "crashed"
    for copy in range(12):
        shutil.copytree(DEMO_BAD, tree / f"team-{copy}")
    done = subprocess.run(
        [sys.executable, "-c", CRASHING_FIXER, str(tree), str(marker)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # as any fix k8slb fails to make: findings remain
    culprit = Path(marker.read_text())

    def demo(copy: Path) -> Path:  # tree/team-N/a/b.py: the demo's a/b.py
        return DEMO_BAD.joinpath(*copy.relative_to(tree).parts[1:])

    assert culprit.read_bytes() == demo(culprit).read_bytes()
    said = re.escape(f"not fixed: {culprit}: ") + r"KLB\d+(, KLB\d+)*: internal error"
    assert re.search(said, done.stderr), done.stderr  # the rules whose fixes were not made
    changed = {p for p in tree.rglob("*") if p.is_file() and p.read_bytes() != demo(p).read_bytes()}
    fixable = {p for p in tree.rglob("*") if demo(p) in {demo(c) for c in changed}}
    assert len(changed) >= PARALLEL_MIN_EDITS  # made in processes
    assert changed == fixable - {culprit}, "every other file is fixed"


WEB = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: other}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example/web:1.0
          ports: [{name: http, containerPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: other}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
"""


def test_after_a_refused_write_the_report_is_of_the_files_as_they_are_on_disk(
    tmp_path: Path,
) -> None:
    """The fixed text of a file that could not be written (a preStop hook that moves the
    lines below it, a headless twin that turns KLB101 to info) is not what is reported:
    the listing is a plain check of the files after the run, the written file's fixes
    counted, the other's said to be not written."""
    real = tmp_path / "real.yaml"
    shutil.copy(GRACE_5, real)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)  # refused: written through a symbolic link
    web = tmp_path / "web.yaml"
    web.write_text(WEB)
    code, out, err = invoke("fix", "--isolated", "--no-cache", str(link), str(web))
    assert code == 2 and "link.yaml: not written: is a symbolic link" in err
    assert real.read_bytes() == GRACE_5.read_bytes()
    assert "preStop" in web.read_text(), "the other file is written"
    _, checked, _ = invoke("check", "-q", "--isolated", "--no-cache", str(link), str(web))
    *listing, summary = out.splitlines()
    assert listing == checked.splitlines()
    remaining = sum(1 for line in listing if not line.startswith(" "))
    assert summary.startswith(
        f"Fixed 1 finding (KLB401) in 1 file; 2 fixes not written (see below); "
        f"{remaining} findings remain"
    )


def test_a_run_whose_every_write_is_refused_reports_what_a_check_does(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    shutil.copy(GRACE_5, real)
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    _, checked, _ = invoke("check", "-q", "--isolated", "--no-cache", str(link))
    _, out, _ = invoke("fix", "--isolated", "--no-cache", str(link))
    *listing, summary = out.splitlines()
    assert listing == checked.splitlines()
    assert "KLB101 [*] [warning]" in out, "no headless twin was written: KLB101 stays a warning"
    assert summary.startswith("Nothing fixed; 2 fixes not written (see below); 3 findings remain")


def test_a_chart_fix_counts_each_file_of_the_chart_it_changed() -> None:
    """A fix that changed a template and values.yaml changed two files, not one chart."""
    from k8slb.core.edits import ChartEdit
    from k8slb.core.findings import Finding, Severity
    from k8slb.fixing.fixer import FixOutcome
    from k8slb.interface.cli import _fix_summary

    def member(name: str) -> ChartEdit:
        return ChartEdit("chart", name, "old", "new", "rendered", "expected", None)

    finding = Finding(
        "KLB402",
        "grace-too-short",
        Severity.ERROR,
        "chart/templates/deploy.yaml",
        13,
        7,
        "grace period 3 s is not longer than the 20 s preStop pause",
        edits=(member("templates/deploy.yaml"), member("values.yaml")),
    )
    outcome = FixOutcome(fixed=[finding])
    said = _fix_summary(outcome, [finding], diff=False, unsafe=True)
    assert said == "Fixed 1 finding (KLB402) in 2 files; 0 findings remain."


def test_a_file_gone_since_it_was_read_is_reported_not_written(tmp_path: Path) -> None:
    gone = tmp_path / "gone.yaml"
    assert write_atomically(gone, b"old\n", b"new\n") == (
        "cannot be written: No such file or directory"
    )
    assert not gone.exists() and list(tmp_path.iterdir()) == []
