"""The fast paths give the same answer as the plain one: parsing in several processes,
and the cache (cold, warm, and after a file changed). No timing is asserted here; the
speed is measured by `make bench`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from k8slb.core.results import RunResult
from k8slb.reading.sources import discover
from k8slb.report import json as json_report
from k8slb.rules import ALL_RULES
from k8slb.run import engine, parsing, run_memory
from k8slb.run.cache import KEPT_RUNS, MARKER, Cache, dumps_store, loads_store
from k8slb.run.engine import run
from k8slb.run.settings import Settings

from .helpers import CORPUS, FIXTURES, count_parses


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "demo", tree / "demo")
    shutil.copytree(FIXTURES / "multi", tree / "multi")
    if CORPUS.is_dir():
        shutil.copytree(CORPUS / "real", tree / "real")
    return tree


def _report(result: RunResult) -> str:
    return json_report.render(result)


def _run(tree: Path, **kwargs: object) -> RunResult:
    return run(discover([str(tree)]).sources, Settings(rules=ALL_RULES), **kwargs)  # type: ignore[arg-type]


def _pool_tree(tmp_path: Path) -> Path:
    """40 copies of the demo, each with Go code enough that the parse pool pays for
    itself (parsing.fork_pays): a run with two jobs parses in worker processes."""
    tree = tmp_path / "tree"
    helpers = "package pad\n\n" + "".join(f"func F{n}() int {{ return {n} }}\n" for n in range(900))
    for copy in range(40):
        shutil.copytree(FIXTURES / "demo", tree / f"team-{copy}")
        (tree / f"team-{copy}" / "pad.go").write_text(helpers)
    sources = discover([str(tree)]).sources
    items = [(s.path, s.language, Path(s.path).read_bytes()) for s in sources]
    assert parsing.fork_pays(items, 2)
    return tree


def test_parallel_parsing_gives_the_same_output(tmp_path: Path) -> None:
    """As a real CLI process (one thread, so it may fork) on a tree big enough for the pool."""
    tree = _pool_tree(tmp_path)
    # every file, the pyproject.toml that makes each demo folder a project too (read as a
    # build file: its console scripts)
    files = sum(1 for p in tree.rglob("*") if p.is_file())

    def check(jobs: str) -> str:
        command = [sys.executable, "-m", "k8slb", "check", "--no-cache", "--format", "json"]
        done = subprocess.run(
            [*command, "--jobs", jobs, str(tree)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 1, done.stderr
        return done.stdout

    serial = check("1")
    assert check("2") == serial
    assert json.loads(serial)["summary"]["files"] == files


def test_a_cache_written_from_parallel_workers_gives_the_same_output(tmp_path: Path) -> None:
    """The workers' pickled parses go into the cache as they are: a later run that loads
    them (one file changed, so the result itself is not reused) reports what a run
    without a cache reports."""
    tree = _pool_tree(tmp_path)
    env = {**os.environ, "K8SLB_CACHE_DIR": str(tmp_path / "cache")}

    def check(*options: str) -> str:
        command = [sys.executable, "-m", "k8slb", "check", "--format", "json", *options]
        done = subprocess.run(
            [*command, str(tree)], capture_output=True, text=True, check=False, env=env
        )
        assert done.returncode == 1, done.stderr
        return done.stdout

    cold = check("--jobs", "2")
    assert cold == check("--no-cache")
    backend = tree / "team-7" / "bad" / "backend.yaml"
    backend.write_text(backend.read_text().replace("replicas: 3", "replicas: 4"))
    assert check("--jobs", "1") == check("--no-cache")


def test_the_cache_gives_the_same_output_cold_warm_and_after_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = _tree(tmp_path)
    plain = _report(_run(tree))
    cold = _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache")))
    assert (
        (tmp_path / "cache" / MARKER)
        .read_text()
        .startswith("Signature: 8a477f597d28d172789f06886806bc55")
    )
    assert not (tree / ".k8slb_cache").exists() and not (tmp_path / ".k8slb_cache").exists()
    warm_cache = Cache(tmp_path, tmp_path / "cache")
    warm = _report(_run(tree, cache=warm_cache))
    assert plain == cold == warm
    assert warm_cache._files is None, "an unchanged tree does not even load the parses"

    backend = tree / "demo" / "bad" / "backend.yaml"
    backend.write_text(backend.read_text().replace("replicas: 3", "replicas: 4"))
    with monkeypatch.context() as counted:
        parsed = count_parses(counted)
        after = _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache")))
    assert parsed == [str(backend)], "only the changed file is parsed again"
    assert after == _report(_run(tree)), "and the cross-file rules see the change"


def test_a_context_run_from_the_cache_reads_the_bodies_of_the_objects_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cached object keeps its body pickled until something reads it: the index goes by
    what the object read when it was made, so a pre-commit run that judges one plain HTTP
    manifest loads its objects and the few its lookups return, not the tree's, and finds
    what a run without the cache finds. A module's code is loaded as lazily."""
    from dataclasses import replace

    from k8slb.reading.yamltree import YMap
    from k8slb.run import parse_codec

    tree = tmp_path / "tree"
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{team}")
    whole = _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))  # every parse cached
    changed = tree / "team-1" / "frontend.yaml"
    changed.write_text(changed.read_text() + "# changed\n")
    sources = [replace(s, report=s.path == str(changed)) for s in discover([str(tree)]).sources]
    loaded: dict[str, int] = {"bodies": 0, "modules": 0}
    load_part = parse_codec.load_part

    def counted(blob: bytes, kind: type, path: str) -> object:
        loaded["bodies" if kind is YMap else "modules"] += 1
        return load_part(blob, kind, path)

    with monkeypatch.context() as patch:
        patch.setattr(parse_codec, "load_part", counted)
        scoped = run(sources, Settings(rules=ALL_RULES), cache=Cache(tmp_path, tmp_path / "cache"))
    assert _report(scoped) == _report(run(sources, Settings(rules=ALL_RULES)))
    # the teams' copies are variants of one another (units.py): its lookups stay in its own
    # team, whose other files' objects it never reads
    assert loaded["bodies"] <= whole.objects // 3, "at most one team's objects of three"
    modules = sum(1 for path in whole.paths if path.endswith((".py", ".go")))
    assert loaded["modules"] < modules // 3, "and of their code, what the links lead to"


def test_runs_that_take_turns_each_find_their_result_and_the_parses_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole-tree run and a one-file run (a pre-commit hook) share one cache: neither
    undoes the other. Their results are both remembered, and however many one-file runs
    come between, they do not drop the parses the whole-tree run needs; the versions of a
    file that keeps changing do not pile up."""
    tree = _tree(tmp_path)
    one = tree / "demo" / "bad" / "backend.yaml"
    base = tmp_path / "cache"

    def whole() -> str:
        return _report(_run(tree, cache=Cache(tmp_path, base)))

    def single() -> str:
        sources = discover([str(one)]).sources
        return _report(run(sources, Settings(rules=ALL_RULES), cache=Cache(tmp_path, base)))

    expected_whole, expected_single = whole(), single()
    checked: list[object] = []
    real_check = engine._check

    def counting_check(*args: Any, **kwargs: Any) -> RunResult:
        checked.append(args)
        return real_check(*args, **kwargs)

    parsed = count_parses(monkeypatch)
    monkeypatch.setattr(engine, "_check", counting_check)
    assert whole() == expected_whole and single() == expected_single
    assert parsed == [] and checked == [], "each run's result came from the cache"
    for number in range(2 * KEPT_RUNS):  # a hook's runs on a file that keeps changing
        one.write_text(one.read_text() + f"# edit {number}\n")
        single()
    assert len(parsed) == 2 * KEPT_RUNS
    parsed.clear()
    service = tree / "multi" / "namespaces.yaml"
    service.write_text(service.read_text() + "\n# edited\n")
    after = whole()
    assert parsed == [str(service)], "only the file changed since"
    assert after == _report(_run(tree))
    versions = Counter(path for _, path, _ in Cache(tmp_path, base).files.values())
    assert versions[str(one)] <= KEPT_RUNS, "the versions of the last runs, no older ones"
    assert {n for p, n in versions.items() if p != str(one)} == {1}


def test_a_run_that_adds_a_few_parses_writes_them_beside_the_store_not_the_store_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """files.cache holds every parse (megabytes on a large tree); a pre-commit run that
    parses one changed file writes recent.cache (that parse, and which runs used the
    others) and leaves files.cache alone; the next run sees both. A recent.cache written
    for another files.cache is not applied."""
    tree = _tree(tmp_path)
    base = tmp_path / "cache"
    _run(tree, cache=Cache(tmp_path, base))
    folder = Cache(tmp_path, base).folder
    assert folder is not None
    store = (folder / "files.cache").read_bytes()
    backend = tree / "demo" / "bad" / "backend.yaml"
    backend.write_text(backend.read_text() + "# changed\n")
    expected = _report(_run(tree))
    assert _report(_run(tree, cache=Cache(tmp_path, base))) == expected
    assert (folder / "files.cache").read_bytes() == store, "the store is not written again"
    assert (folder / "recent.cache").is_file()
    parsed = count_parses(monkeypatch)
    (folder / "run.cache").unlink()  # so that the next run needs every parse
    assert _report(_run(tree, cache=Cache(tmp_path, base))) == expected
    assert parsed == [], "the changed file's parse came from recent.cache"
    generation, _, uses, added = loads_store((folder / "recent.cache").read_bytes())
    (folder / "recent.cache").write_bytes(dumps_store((generation, "another", uses, added)))
    (folder / "run.cache").unlink()
    assert _report(_run(tree, cache=Cache(tmp_path, base))) == expected
    assert parsed == [str(backend)], "an overlay of another store is ignored"


def test_the_command_line_writes_its_cache_after_the_report_and_the_next_run_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `k8slb check` process ends once its report is out; a child of it writes the
    cache, holding the folder's write lock. The next run waits for that lock, then finds
    every parse written: it parses nothing and reports the same."""
    tree = _tree(tmp_path)
    base = tmp_path / "cache"
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", "check", "--format", "json", str(tree)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "K8SLB_CACHE_DIR": str(base)},
    )
    assert done.returncode == 1, done.stderr
    parsed = count_parses(monkeypatch)
    cache = Cache(tree.resolve(), base)  # waits for the writer, as the next run does
    assert _report(_run(tree, cache=cache)) == done.stdout
    assert parsed == [], "every parse came from the cache the child wrote"
    assert cache.folder is not None and (cache.folder / "write.lock").is_file()


def test_the_command_line_forks_its_cache_writer_once_its_report_is_out(tmp_path: Path) -> None:
    """Forked mid-run, the writer would share the heap with a process still at work, which
    would then copy every page it touched (freeing its trees, rendering its report)."""
    tree = _tree(tmp_path)
    files = sum(1 for p in tree.rglob("*") if p.is_file())
    assert files < parsing.PARALLEL_MIN_FILES, "no parse pool: the writer is the one fork"
    noting_forks = (
        "import os, sys\n"
        "fork = os.fork\n"
        "def noted():\n"
        "    sys.stdout.write('<fork>\\n'); sys.stdout.flush()\n"
        "    return fork()\n"
        "os.fork = noted\n"
        "from k8slb.interface.cli import main\n"
        "sys.argv = ['k8slb', 'check', '--format', 'json', sys.argv[1]]\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", noting_forks, str(tree)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "K8SLB_CACHE_DIR": str(tmp_path / "cache"), "K8SLB_NO_SERVER": "1"},
    )
    assert done.returncode == 1, done.stderr
    report, _, after = done.stdout.rpartition("<fork>\n")
    assert after == "" and "<fork>" not in report, "one fork, after the whole report"
    assert json.loads(report)["findings"]


def test_a_cache_saved_in_the_background_is_written_once_the_command_is_done(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line saves its cache in the background: the child that writes it is
    forked when the command is done (cache.write_waiting), not while the process still
    frees its trees and renders its report (each page it then touched would be copied)."""
    import k8slb.run.cache as cache_module

    monkeypatch.setattr(cache_module, "_waiting", [])
    monkeypatch.setattr(cache_module, "_written", [])
    monkeypatch.setattr(cache_module, "_can_fork", lambda: True)
    tree = _tree(tmp_path).resolve()
    base = tmp_path / "cache"
    saved = Cache(tree, base, background=True)
    expected = _report(_run(tree, cache=saved))
    assert saved.folder is not None
    assert not (saved.folder / "files.cache").exists(), "nothing written during the run"
    assert cache_module._waiting == [saved]
    monkeypatch.setattr(cache_module, "_can_fork", lambda: False)  # written by this process
    cache_module.write_waiting()
    assert cache_module._waiting == [] and cache_module._written == [saved], "kept, not freed"
    parsed = count_parses(monkeypatch)
    assert _report(_run(tree, cache=Cache(tree, base))) == expected
    assert parsed == [], "every parse was written"


def test_a_command_line_leaves_a_hooks_model_unfreed_and_frees_a_whole_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command line of its own (its cache written in the background) ends without
    freeing anything: a run that reports on some of its files (a pre-commit hook's) leaves
    its model to the process's end rather than freeing the whole tree's as it returns,
    and says the same as a run that frees it. A whole run's model is not kept for that
    (its report's peak of memory), and a run with no process of its own to end (a library
    caller's) frees its model as it returns."""
    import gc
    import weakref
    from dataclasses import replace

    import k8slb.run.cache as cache_module

    monkeypatch.setattr(cache_module, "_waiting", [])
    monkeypatch.setattr(engine, "_OUTLIVING", [])
    tree = (tmp_path / "tree").resolve()
    for team in range(2):
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{team}")
    named = str(tree / "team-1" / "frontend.yaml")
    sources = [replace(s, report=s.path == named) for s in discover([str(tree)]).sources]
    settings = Settings(rules=ALL_RULES)
    made: list[weakref.ref[object]] = []
    analyse = engine.analyse

    def noted(*args: Any, **kwargs: Any) -> Any:
        context = analyse(*args, **kwargs)
        made.append(weakref.ref(context))
        return context

    monkeypatch.setattr(engine, "analyse", noted)
    gc.collect()
    base = tmp_path / "cache"
    hook = run(sources, settings, cache=Cache(tree, base, background=True))
    assert made[-1]() is not None, "the hook's model is left to the process's end"
    assert _report(hook) == _report(run(sources, settings))
    assert len(engine._OUTLIVING) == 1
    _run(tree, cache=Cache(tree, base, background=True))  # (its links kept for the writer)
    assert len(engine._OUTLIVING) == 1, "a whole run's model is not left unfreed"
    run(sources, settings, cache=Cache(tree, base))
    gc.collect()
    assert made[-1]() is None, "a library caller's is freed as the run returns"
    assert len(engine._OUTLIVING) == 1


def test_a_cache_this_process_saved_is_written_before_it_reads_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check --fix` saves the fix's cache, then checks: its check reads what the fix
    saved, as a next process would."""
    import k8slb.run.cache as cache_module

    monkeypatch.setattr(cache_module, "_waiting", [])
    monkeypatch.setattr(cache_module, "_can_fork", lambda: True)
    tree = _tree(tmp_path).resolve()
    base = tmp_path / "cache"
    expected = _report(_run(tree, cache=Cache(tree, base, background=True)))
    parsed = count_parses(monkeypatch)
    assert _report(_run(tree, cache=Cache(tree, base, background=True))) == expected
    assert parsed == [], "the first run's parses were written before the second read them"


def test_a_run_waits_while_another_process_writes_the_cache(tmp_path: Path) -> None:
    """The write lock is what keeps a run from reading a cache half written."""
    import fcntl
    import threading

    base = tmp_path / "cache"
    _run(_tree(tmp_path), cache=Cache(tmp_path, base))
    folder = Cache(tmp_path, base).folder
    assert folder is not None
    writer = os.open(folder / "write.lock", os.O_RDWR | os.O_CREAT)
    fcntl.flock(writer, fcntl.LOCK_EX)  # as a writing child holds it
    made: list[Cache] = []
    reader = threading.Thread(target=lambda: made.append(Cache(tmp_path, base)))
    reader.start()
    reader.join(0.5)
    assert reader.is_alive() and not made, "it waits"
    os.close(writer)
    reader.join(10)
    assert made, "and goes on once the writer is done"


def test_a_broken_cache_is_ignored(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    Cache(tmp_path, tmp_path / "cache")  # nothing yet
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    for stored in (tmp_path / "cache").rglob("*.cache"):
        stored.write_bytes(b"not a pickle")
    assert _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache"))) == _report(_run(tree))


def test_cached_parses_do_not_remember_which_suppressions_were_used(tmp_path: Path) -> None:
    """A suppression in an unchanged file that stops being needed because another file
    changed is reported as unused, cache or not."""
    from k8slb.rulekit.examples import READY, SERVICE, web_deployment

    tree = tmp_path / "tree"
    tree.mkdir()
    deployment = web_deployment(READY, service=False).replace(
        "        - name: web\n", "        - name: web  # k8slb: ignore[KLB401]\n"
    )
    (tree / "deployment.yaml").write_text(deployment)
    (tree / "service.yaml").write_text(SERVICE)
    settings = Settings(rules=ALL_RULES, report_unused_ignores=True)

    def unused() -> list[str]:
        result = run(
            discover([str(tree)]).sources, settings, cache=Cache(tmp_path, tmp_path / "cache")
        )
        return [f.rule for f in result.findings if f.rule == "KLB005"]

    assert unused() == [], "the comment hides KLB401"
    (tree / "service.yaml").write_text(SERVICE.replace("app: web", "app: other"))
    assert unused() == ["KLB005"], "no Service selects the pods now: nothing to hide"


def test_an_untouched_tree_is_not_even_read_and_a_touched_one_is_recognised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k8slb.reading import sources as sources_module

    monkeypatch.setattr(run_memory, "RACY_NS", 0)  # the tree was just written: see test_racy_...

    tree = _tree(tmp_path)
    expected = _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache")))

    def no_reading(self: object) -> bytes:
        raise AssertionError("an untouched tree is answered without reading files")

    with monkeypatch.context() as patch:
        patch.setattr(sources_module.Source, "read", no_reading)
        assert _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache"))) == expected

    backend = tree / "demo" / "bad" / "backend.yaml"
    os.utime(backend, ns=(backend.stat().st_atime_ns, backend.stat().st_mtime_ns + 10**9))
    parsed = count_parses(monkeypatch)
    assert _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache"))) == expected
    assert parsed == [], "same bytes: the result is reused"


def test_after_a_change_only_the_changed_files_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file whose size and times are as the last run saw them is recognised by the key
    of its bytes, unread; its parse comes from the cache. So is a Dockerfile: what it
    says is a parse of its own."""
    from k8slb.reading import sources as sources_module

    monkeypatch.setattr(run_memory, "RACY_NS", 0)  # the tree was just written: see test_racy_...

    tree = _tree(tmp_path)
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    backend = tree / "demo" / "bad" / "backend.yaml"
    backend.write_text(backend.read_text() + "# changed\n")
    expected = _report(_run(tree))  # no cache: every file read and parsed
    read: list[str] = []
    original = sources_module.Source.read
    monkeypatch.setattr(
        sources_module.Source, "read", lambda self: read.append(self.path) or original(self)
    )
    assert _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache"))) == expected
    assert read == [str(backend)]


def test_a_changed_dockerfile_is_read_again_and_moves_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link follows a Dockerfile changed since the cached run: its new CMD names other
    code, and the run from the cache says what a run without one says."""
    monkeypatch.setattr(run_memory, "RACY_NS", 0)
    tree = _tree(tmp_path)
    before = _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    dockerfile = tree / "demo" / "bad" / "inventory" / "Dockerfile"
    (dockerfile.parent / "worker.py").write_text("import time\n\ntime.sleep(1)\n")
    dockerfile.write_text(dockerfile.read_text().replace("server.py", "worker.py"))
    expected = _run(tree)
    after = _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    assert _report(after) == _report(expected)
    assert after.links == expected.links
    assert after.links != before.links, "the container runs worker.py now"


def test_a_file_rewritten_with_its_old_size_and_time_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Setting the modification time back does not hide an edit: the change time moves."""
    monkeypatch.setattr(run_memory, "RACY_NS", 0)  # the stamp alone tells, however recent
    tree = _tree(tmp_path)
    before_edit = _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache")))
    service = tree / "demo" / "bad" / "backend.yaml"
    before = service.stat()
    text = service.read_text()
    service.write_text(text.replace("    - name: grpc\n      port", "    - name: http\n      port"))
    assert service.stat().st_size == before.st_size
    os.utime(service, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = _report(_run(tree, cache=Cache(tmp_path, tmp_path / "cache")))
    assert after == _report(_run(tree)) != before_edit


def test_racy_files_changed_within_two_seconds_are_read_whatever_their_stamp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system whose times have a one-second grain, a second edit in the same
    second leaves the stamp as it was: a file changed that recently is read (as git treats
    "racily clean" files), and the whole tree is not answered by its stamps."""
    from k8slb.reading import sources as sources_module

    tree = _tree(tmp_path)
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    read: list[str] = []
    original = sources_module.Source.read
    monkeypatch.setattr(
        sources_module.Source, "read", lambda self: read.append(self.path) or original(self)
    )
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    every = [s.path for s in discover([str(tree)]).sources if s.unread is None]
    assert sorted(read) == sorted(every), "just written: every file is read again"
    monkeypatch.setattr(run_memory, "RACY_NS", 0)  # the same files, seen as settled
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))  # their stamps are noted now
    read.clear()
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))
    assert read == [], "settled and untouched: answered by the stamps"


def test_the_settings_digest_is_the_same_in_every_process() -> None:
    """Set order depends on a per-process hash seed; the cache key must not."""
    code = (
        "from k8slb.run.config import Exemption; from k8slb.run.settings import Settings;"
        "print(Settings(rules=(), per_file_ignores={'a/*': frozenset({'KLB201', 'KLB401',"
        " 'KLB301', 'KLB101'})}, exemptions=[Exemption(frozenset({'KLB401', 'KLB402',"
        " 'KLB301'}), 'why')]).digest([]))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
        ).stdout
        for seed in range(4)
    }
    assert len(digests) == 1


def test_an_objects_short_annotations_travel_beside_its_header_and_long_ones_in_its_body() -> None:
    """A cached object answers what its annotations say without loading its body (a
    pre-commit run on a module asked every Service of the tree, for the L7 proxies in front
    of it), with their positions; annotations longer than `ANNOTATIONS_BESIDE` (a
    `last-applied-configuration`) are read from the body, as they were."""
    from k8slb.model.objects import pos_of
    from k8slb.reading.manifests import load_manifests
    from k8slb.run import parse_codec
    from k8slb.run.data_pickle import load_data

    long = "x" * parse_codec.ANNOTATIONS_BESIDE
    text = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: short\n  annotations:\n"
        '    cloud.google.com/app-protocols: \'{"grpc": "HTTP2"}\'\n'
        "    k8slb.io/ignore: KLB101; fronted\nspec:\n  ports: [{port: 80}]\n---\n"
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: long\n  annotations:\n    a: {long}\n"
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: none\n"
    )
    parsed = load_manifests("svc.yaml", text.encode())
    fresh = {obj.name: obj.annotations for obj in parsed.objects}
    once = load_data(parse_codec.dumps(parsed))
    twice = load_data(parse_codec.dumps(once))  # a cached parse pickled again, bodies unread
    for stored in (once, twice):
        short, long_one, none = stored.objects
        assert short.annotations == fresh["short"] and none.annotations == {}
        key = "k8slb.io/ignore"
        assert pos_of(short.annotations, key) == pos_of(fresh["short"], key)
        assert "_blob" in short.__dict__ and "_blob" in none.__dict__, "no body loaded"
        assert "_blob" in long_one.__dict__
        assert long_one.annotations == fresh["long"]
        assert "_blob" not in long_one.__dict__, "long ones are the body's"


def test_a_context_run_on_a_module_reads_no_body_for_its_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-commit run on a module looks for the L7 proxies in front of every Service
    (a GKE backend says so in its annotations): it finds what a run without the cache
    finds, and loads no object's body to read its annotations."""
    from dataclasses import replace

    from k8slb.reading.objects import K8sObject

    tree = tmp_path / "tree"
    for team in range(4):
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{team}")
    _run(tree, cache=Cache(tmp_path, tmp_path / "cache"))  # every parse cached
    changed = tree / "team-1" / "server.py"
    changed.write_text(changed.read_text() + "# changed\n")
    sources = [replace(s, report=s.path == str(changed)) for s in discover([str(tree)]).sources]
    asked: list[str] = []
    loaded: list[str] = []
    annotations = K8sObject.annotations.fget
    assert annotations is not None

    def read(obj: K8sObject) -> Any:
        unread = "_blob" in obj.__dict__
        found = annotations(obj)
        asked.append(obj.kind)
        if unread and "_blob" not in obj.__dict__:
            loaded.append(f"{obj.kind}/{obj.name} of {obj.path}")
        return found

    with monkeypatch.context() as patch:
        patch.setattr(K8sObject, "annotations", property(read))
        scoped = run(sources, Settings(rules=ALL_RULES), cache=Cache(tmp_path, tmp_path / "cache"))
    assert _report(scoped) == _report(run(sources, Settings(rules=ALL_RULES)))
    assert asked.count("Service") >= 4 * 2, "every team's Services are asked"
    assert loaded == []


def test_the_l7_fronts_load_no_body_of_a_service_contour_names_no_port_of() -> None:
    """Which Services an L7 proxy fronts is asked of every Service of the tree (a
    pre-commit run on a module asks it): Contour's annotations are read before a Service's
    ports, so a cached Service that no Contour annotation names a port of keeps its body
    unloaded; one that has such an annotation is still matched by its ports. An empty
    part of the annotation names no port (a port written `name: ""` is not reached)."""
    from k8slb.model.routes import l7_fronts
    from k8slb.reading.manifests import load_manifests
    from k8slb.run import parse_codec
    from k8slb.run.data_pickle import load_data

    text = (
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: plain\n"
        "spec:\n  ports: [{name: grpc, port: 50051}]\n---\n"
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: unnamed\n  annotations:\n"
        "    projectcontour.io/upstream-protocol.h2c: ''\n"
        "spec:\n  ports: [{name: '', port: 80}]\n---\n"
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: reached\n  annotations:\n"
        "    projectcontour.io/upstream-protocol.h2c: ' 50051 ,'\n"
        "spec:\n  ports: [{name: grpc, port: 50051}]\n"
    )
    stored = load_data(parse_codec.dumps(load_manifests("svc.yaml", text.encode())))
    plain, unnamed, _reached = stored.objects
    fronts = l7_fronts(stored.objects)
    assert "_blob" in plain.__dict__, "no annotation: its ports were not read"
    assert list(fronts) == [("default", "reached")]
    assert fronts["default", "reached"][0].reason.startswith("Contour (projectcontour.io/")
    assert ("default", "unnamed") not in fronts and "_blob" in unnamed.__dict__


def test_no_patch_merged_works_out_no_objects_key_for_the_suppressions() -> None:
    """The suppressions ask which object a finding moved into a patch file belongs to
    (patch_aliases), over every object of the tree: with no patch merged, no object's
    key (a record, hashed: some 8,000 at 10,000 files, for a hook's few findings) is
    worked out; with one, its patch's findings are the object's."""
    from k8slb.core.findings import ObjectRef
    from k8slb.model.patched import patch_aliases

    class Unasked:
        path, document, item = "a.yaml", 0, None

        @property
        def ref(self) -> ObjectRef:
            raise AssertionError("the object's key was worked out")

    assert patch_aliases([Unasked()] * 3, {}) == {}  # type: ignore[list-item]
    merged = ObjectRef("Deployment", "shop", "web", 0)

    class Patched(Unasked):
        ref = merged

    moved = {("a.yaml", merged): {"spec.replicas": "patch.yaml"}}
    assert patch_aliases([Patched()], moved) == {  # type: ignore[list-item]
        ("patch.yaml", 0, None): ("a.yaml", 0, None)
    }


def test_a_hook_takes_the_build_facts_digest_the_whole_run_kept_while_its_build_files_are_as_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook on a module takes the links the last whole run kept once their digest is
    its model's own: the build facts' part of it (some 0.03 s of records' reprs at 10,000
    files) is the whole run's while every file read for build facts is as then, and is
    worked out again once one changed (a Dockerfile); the hook finds what a run without
    the cache finds either way."""
    from dataclasses import replace

    from k8slb.model import links

    tree = tmp_path / "tree"
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{team}")
        (tree / f"team-{team}" / "Dockerfile").write_text(
            'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/server.py"]\n'
        )
    cache = tmp_path / "cache"
    worked: list[str] = []
    restored: list[int] = []
    digest, restore = links.builds_digest, links.CodeLinks.restore

    def counting(builds: Any) -> str:
        worked.append("builds")
        return digest(builds)

    def noting(self: links.CodeLinks, remembered: Any, *arguments: Any, **named: Any) -> None:
        restored.append(len(remembered))
        restore(self, remembered, *arguments, **named)

    monkeypatch.setattr(links, "builds_digest", counting)
    monkeypatch.setattr(links.CodeLinks, "restore", noting)
    changed = tree / "team-1" / "server.py"
    for edited in (changed, tree / "team-2" / "Dockerfile"):
        _run(tree, cache=Cache(tmp_path, cache))  # the whole run: its links kept
        for path in {changed, edited}:
            path.write_text(path.read_text() + "# changed\n")
        sources = [replace(s, report=s.path == str(changed)) for s in discover([str(tree)]).sources]
        worked.clear(), restored.clear()
        hook = run(sources, Settings(rules=ALL_RULES), cache=Cache(tmp_path, cache))
        assert restored and restored[0] > 0, "the whole run's links were taken"
        assert worked == ([] if edited == changed else ["builds"])
        assert _report(hook) == _report(run(sources, Settings(rules=ALL_RULES)))


def test_a_files_name_says_it_is_a_build_file_once_a_run_and_a_workflows_folder_still_counts() -> (
    None
):
    """`names_builds`, asked of every file two or three times a run, judges each name once;
    a CI workflow is one by its folder, so the same name elsewhere is no build file."""
    from k8slb.reading import build_files

    build_files._name_builds.cache_clear()
    said = {
        "deploy/ci.yml": False,
        ".github/workflows/ci.yml": True,
        "svc/.github/workflows/ci.yml": True,
        "workflows/ci.yml": False,
        "svc/Dockerfile": True,
        "svc/Dockerfile.dev": True,
        "svc/api.Dockerfile": True,
        "setup.py": True,
        "svc/server.py": False,
        "docker-compose.yml": True,
        "skaffold.yaml": True,
        "Makefile": True,
        "k8s/deploy.yaml": False,
        "Jenkinsfile": True,
    }
    for path, builds in said.items():
        assert build_files.names_builds(path) is builds, path
    asked = build_files._name_builds.cache_info()
    for path, builds in said.items():
        assert build_files.names_builds(path) is builds, path
    again = build_files._name_builds.cache_info()
    assert again.misses == asked.misses and again.hits > asked.hits  # each name once


def _builds_tree(tmp_path: Path) -> Path:
    """Three services of the demo, each built by a Dockerfile of its own, one with a
    compose file too (a file of another kind whose name says it builds)."""
    tree = tmp_path / "tree"
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{team}")
        (tree / f"team-{team}" / "Dockerfile").write_text(
            'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/server.py"]\n'
        )
    (tree / "team-0" / "docker-compose.yml").write_text(
        "services:\n  api:\n    build: .\n    image: acme/api:1\n"
    )
    return tree


def test_a_hook_takes_the_build_facts_kept_while_every_file_they_rest_on_is_as_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run keeps its build facts by the key of the files that make them (the build
    files in the run's order, and a compose file's bytes); a hook whose files are as then
    takes them and loads no build file's parse, and one after a Dockerfile's or a compose
    file's edit, or with a build file named first (another order), makes them anew. Each
    finds what a run without the cache finds."""
    from dataclasses import replace

    from k8slb.reading.build_files import BuildFile

    monkeypatch.setattr(run_memory, "RACY_NS", 0)
    tree = _builds_tree(tmp_path)
    cache = tmp_path / "cache"
    made: list[int] = []
    loaded: list[str] = []
    facts, parsed = engine.read_build_facts, Cache.parsed_by_key

    def making(files: Any) -> Any:
        made.append(1)
        return facts(files)

    def loading(self: Cache, key: str, path: str) -> Any:
        found = parsed(self, key, path)
        loaded.extend([path] if isinstance(found, BuildFile) else [])
        return found

    monkeypatch.setattr(engine, "read_build_facts", making)
    monkeypatch.setattr(Cache, "parsed_by_key", loading)
    manifest = next(tree.glob("team-1/*.yaml"))
    dockerfile, compose = tree / "team-2" / "Dockerfile", tree / "team-0" / "docker-compose.yml"
    for edited, again in ((manifest, False), (dockerfile, True), (compose, True)):
        _run(tree, cache=Cache(tmp_path, cache))  # the whole run: its build facts kept
        edited.write_text(edited.read_text() + "# changed\n")
        named = [replace(s, report=s.path == str(edited)) for s in discover([str(tree)]).sources]
        made.clear(), loaded.clear()
        hook = run(named, Settings(rules=ALL_RULES), cache=Cache(tmp_path, cache))
        assert made == ([1] if again else []), edited
        assert again or loaded == [], "no build file's parse is loaded"
        assert _report(hook) == _report(run(named, Settings(rules=ALL_RULES)))
    _run(tree, cache=Cache(tmp_path, cache))
    sources = discover([str(tree)]).sources
    first = sorted(sources, key=lambda s: s.path != str(dockerfile))  # a build file first
    made.clear()
    reordered = run(first, Settings(rules=ALL_RULES), cache=Cache(tmp_path, cache))
    assert made == [1], "another order of the build files: the facts are made anew"
    assert _report(reordered) == _report(run(first, Settings(rules=ALL_RULES)))


def test_kept_build_facts_that_are_forged_or_damaged_are_made_anew(tmp_path: Path) -> None:
    """facts.cache of the wrong shape, or whose pickle names what is no data, is not
    taken: the run makes its build facts and finds what a run without the cache finds."""
    import pickle

    from k8slb.run.cache import dumps

    tree = _builds_tree(tmp_path)
    cache = tmp_path / "cache"
    _run(tree, cache=Cache(tmp_path, cache))
    (facts,) = cache.rglob("facts.cache")
    key = Cache(tmp_path, cache)._load("facts.cache")[0]
    plain = _report(_run(tree))
    for forged in (
        dumps(("key", "not a pickle")),
        dumps((key, pickle.dumps(shutil.rmtree))),
        dumps((key, pickle.dumps({"not": "facts"}))),
    ):
        facts.write_bytes(forged)
        for stale in cache.rglob("run.cache"):
            stale.unlink()  # so that the run reads its files again
        (tree / "team-1" / "server.py").write_text("# touched\n", encoding="utf-8")
        assert _report(_run(tree, cache=Cache(tmp_path, cache))) == _report(_run(tree))
    assert plain


def test_a_whole_check_after_an_edit_takes_the_build_facts_kept_for_both_of_its_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check .` after a manifest's edit makes the model before the edit and the one
    after (incremental.after_edit): where the build files are as the last whole run read
    them, both take the build facts it kept, and the check finds what a fresh one finds;
    after a Dockerfile's edit, the model after it makes them anew."""
    from k8slb.interface import api
    from k8slb.run import incremental

    monkeypatch.setattr(run_memory, "RACY_NS", 0)
    tree = _builds_tree(tmp_path)
    (tree / ".git").mkdir()
    made: list[int] = []
    judged: list[bool] = []
    facts, after_edit = engine.read_build_facts, incremental.after_edit

    def making(files: Any) -> Any:
        made.append(1)
        return facts(files)

    def spied(*arguments: Any, **options: Any) -> Any:
        found = after_edit(*arguments, **options)
        judged.append(found is not None)
        return found

    monkeypatch.setattr(engine, "read_build_facts", making)
    monkeypatch.setattr(api, "after_edit", spied)

    def check() -> str:
        run = api.plan([str(tree)])
        return _report(api.check(run, jobs=1, cache=Cache(run.cache_root, tmp_path / "c")))

    check()  # the whole run: its build facts kept
    manifest, dockerfile = next(tree.glob("team-1/*.yaml")), tree / "team-2" / "Dockerfile"
    for edited, anew in ((manifest, []), (dockerfile, [1])):
        edited.write_text(edited.read_text() + "# changed\n")
        made.clear(), judged.clear()
        checked = check()
        assert judged == [True], "judged again in part after the edit"
        assert made == anew, edited
        assert checked == _report(api.check(api.plan([str(tree)]), jobs=1))


def _model_of(tree: Path) -> Any:
    """The model of the tree, as a check makes it (every parse fresh)."""
    from k8slb.run.engine import analyse, read_bytes, read_sources

    sources = discover([str(tree)]).sources
    settings = Settings(rules=ALL_RULES)
    return analyse(sources, settings, read_sources(sources, read_bytes(sources), settings=settings))


def test_the_folders_of_links_kept_as_made_are_read_without_a_workloads_body(
    tmp_path: Path,
) -> None:
    """Which workloads' links hold a folder (KLB111 asks it of a module no container runs,
    judged again after an edit beside it): a model before an edit, whose links were taken
    as the last whole run made them, answers from those links, reading no pod template,
    what its links once made say, in their order; a model with none kept makes them."""
    for team in range(3):
        shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / f"team-{team}")
    first = _model_of(tmp_path)
    made = [
        (link.workload.path, link.workload.name, link.folder, link.guessed)
        for link in first.links.links
    ]
    assert len(made) == 6 and any(not guessed for *_, guessed in made)
    again = _model_of(tmp_path)
    again.links.restore(first.links.remembered(), as_made=True)
    kept = [(w.path, w.name, folder, guessed) for w, folder, guessed in again.links.folders()]
    assert kept == made
    assert not again.index._templates, "no workload's body read"
    fresh = _model_of(tmp_path)
    assert [(w.path, w.name, f, g) for w, f, g in fresh.links.folders()] == made
