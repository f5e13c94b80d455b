"""The cache never trusts the repository it lints: it lives outside the tree, follows no
symbolic link, removes only what k8slb made, and loads nothing but k8slb's data."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from k8slb.code.facts import CodeFacts
from k8slb.core.results import RunResult
from k8slb.reading.sources import Source, discover
from k8slb.report import json as json_report
from k8slb.rules import ALL_RULES
from k8slb.run import cache as cache_module
from k8slb.run.cache import MARKER, Cache, dumps, dumps_store, loads, loads_store
from k8slb.run.data_pickle import load_data
from k8slb.run.engine import run
from k8slb.run.settings import Settings

from .helpers import FIXTURES


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "repo"
    shutil.copytree(FIXTURES / "demo", tree)
    return tree


def _check(tree: Path, cache: Cache | None) -> str:
    result: RunResult = run(discover([str(tree)]).sources, Settings(rules=ALL_RULES), cache=cache)
    return json_report.render(result)


def _cached(tmp_path: Path) -> tuple[Path, Path, Path, str]:
    """A tree checked once with a cache: (tree, cache base, its folder, the report)."""
    tree = _tree(tmp_path)
    base = tmp_path / "cache"
    cache = Cache(tree, base)
    plain = _check(tree, cache)
    assert cache.folder is not None
    return tree, base, cache.folder, plain


def _cli(tree: Path, cache_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "k8slb", "check", "--isolated", "."],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "K8SLB_CACHE_DIR": str(cache_dir)},
    )


def test_a_committed_cache_link_deletes_nothing_and_nothing_is_written_in_the_tree(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path)
    victim = tmp_path / "home"
    (victim / "projects" / "precious").mkdir(parents=True)
    (victim / "projects" / "precious" / "only-copy.txt").write_text("keep me")
    (tree / ".k8slb_cache").symlink_to(victim / "projects")
    (tree / "loop").symlink_to(".", target_is_directory=True)
    before = sorted(p.relative_to(tree) for p in tree.rglob("*"))

    for _ in range(2):  # cold, then warm
        done = _cli(tree, tmp_path / "cache")
        assert done.returncode == 1, done.stderr

    assert (victim / "projects" / "precious" / "only-copy.txt").read_text() == "keep me"
    assert sorted(p.relative_to(tree) for p in tree.rglob("*")) == before
    assert any((tmp_path / "cache").rglob("run.cache")), "the cache went to the user's folder"


def test_a_cache_folder_that_is_a_link_or_not_ours_is_not_used(tmp_path: Path) -> None:
    tree = _tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache").symlink_to(elsewhere, target_is_directory=True)
    cache = Cache(tree, tmp_path / "cache")
    assert _check(tree, cache) == _check(tree, None)
    assert list(elsewhere.iterdir()) == [], "nothing is written through the link"

    base = tmp_path / "base"
    project = Cache(tree, base)
    project.remember(("key",), "a result")
    project.save()
    assert project.folder is not None and (project.folder / "run.cache").is_file()
    shutil.rmtree(project.folder)  # the version folder replaced by a link: refused
    project.folder.symlink_to(elsewhere, target_is_directory=True)
    planted = elsewhere / "run.cache"
    planted.write_bytes(dumps(((None,), "planted")))
    fresh = Cache(tree, base)
    assert fresh.runs == [], "nothing is read through the link"
    planted.unlink()
    assert _check(tree, fresh) == _check(tree, None)
    assert list(elsewhere.iterdir()) == []


def test_only_folders_with_k8slbs_marker_are_removed_and_links_are_not_followed(
    tmp_path: Path,
) -> None:
    tree = _tree(tmp_path)
    base = tmp_path / "cache"
    first = Cache(tree, base)
    _check(tree, first)
    assert first.folder is not None
    project = first.folder.parent
    stale = project / "0.0.1-1-old"
    (stale / "deep").mkdir(parents=True)
    (stale / MARKER).write_bytes(b"Signature: 8a477f597d28d172789f06886806bc55\n")
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (stale / "deep" / "link").symlink_to(outside, target_is_directory=True)
    foreign = project / "not-ours"
    foreign.mkdir()
    marked_outside = tmp_path / "marked"
    marked_outside.mkdir()
    (marked_outside / MARKER).write_text("Signature: 8a477f597d28d172789f06886806bc55\n")
    (project / "linked").symlink_to(marked_outside, target_is_directory=True)

    (tree / "bad" / "backend.yaml").write_text("kind: Service\n")  # a change: the cache saves
    _check(tree, Cache(tree, base))

    assert not stale.exists(), "k8slb's own stale cache is removed"
    assert (outside / "keep").is_dir(), "without following the link inside it"
    assert foreign.is_dir(), "a folder without the marker is not k8slb's"
    assert (marked_outside / MARKER).is_file(), "a link to a marked folder is not followed"


class _Planted:
    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, ("touch PWNED",))


def _forged(value: object) -> bytes:
    """A file with the right checksum: anyone can compute it."""
    payload = pickle.dumps(value)
    return b"k8slb-cache\n" + zlib.crc32(payload).to_bytes(4, "big") + payload


def test_a_forged_cache_file_runs_no_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert loads(_forged(_Planted())) is None
    assert loads(_forged({"k": shutil.rmtree})) is None
    assert loads(_forged(cache_module.Cache)) is None, "a class that is no data class"
    assert not (tmp_path / "PWNED").exists()

    tree, base, folder, _ = _cached(tmp_path)
    (folder / "run.cache").write_bytes(_forged(((None,), _Planted())))
    assert _check(tree, Cache(tree, base)) == _check(tree, None)
    assert not (tmp_path / "PWNED").exists()


def test_a_forged_result_file_runs_no_code(tmp_path: Path) -> None:
    tree, base, folder, plain = _cached(tmp_path)
    results = list(folder.glob("result-*.cache"))
    assert results
    for result in results:
        result.write_bytes(_forged(_Planted()))
    assert _check(tree, Cache(tree, base)) == plain
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


def test_an_index_naming_a_file_k8slb_does_not_make_is_not_followed(tmp_path: Path) -> None:
    tree, base, folder, _ = _cached(tmp_path)
    (folder / "run.cache").write_bytes(dumps([((None, "k"), "../../../etc/passwd")]))
    assert Cache(tree, base).runs == []


def test_a_forged_entry_inside_a_valid_parse_file_runs_no_code(tmp_path: Path) -> None:
    """Each parse is its own pickle inside files.cache: an entry is unpickled as data only
    too, even when the file's checksum is right."""
    tree, base, folder, plain = _cached(tmp_path)
    generation, stored, token, size = loads_store((folder / "files.cache").read_bytes())
    assert isinstance(stored, dict) and stored
    planted = {key: (run, path, pickle.dumps(_Planted())) for key, (run, path, _) in stored.items()}
    (folder / "files.cache").write_bytes(dumps_store((generation, planted, token, size)))
    (folder / "run.cache").unlink()  # so that the run needs the parses
    assert _check(tree, Cache(tree, base)) == plain
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


@pytest.mark.parametrize("planted", ["object bodies", "module code"])
def test_a_forged_object_body_inside_a_valid_parse_runs_no_code(
    planted: str, tmp_path: Path
) -> None:
    """An object's body, and a module's code beyond what every run reads of it, are
    pickles of their own inside its parse, loaded when first read: unpickled as data only
    too. Refused, they are an error of the run (the command line exits 2, saying to run
    without the cache): no damage gets this far past the checksum."""
    tree, base, folder, _ = _cached(tmp_path)
    generation, stored, token, size = loads_store((folder / "files.cache").read_bytes())
    forged = {}
    for key, (number, path, blob) in stored.items():
        parsed = load_data(blob)
        if planted == "object bodies":
            for obj in getattr(parsed, "objects", []):
                obj.__dict__["_blob"] = pickle.dumps(_Planted())
        elif isinstance(parsed, CodeFacts):
            parsed.__dict__["_rest"] = pickle.dumps(_Planted())
        forged[key] = (number, path, pickle.dumps(parsed, pickle.HIGHEST_PROTOCOL))
    (folder / "files.cache").write_bytes(dumps_store((generation, forged, token, size)))
    (folder / "run.cache").unlink()  # so that the run needs the parses
    damaged = "a cached parse is damaged; run with --no-cache"
    sources = discover([str(tree)]).sources
    try:  # read by the index: the run stops; read by a rule: that rule's error is reported
        errors = run(sources, Settings(rules=ALL_RULES), cache=Cache(tree, base)).errors
    except ValueError as error:
        errors = [str(error)]
    assert errors and all(damaged in error for error in errors)
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


def test_a_recognised_file_whose_parse_is_unusable_is_read_and_a_failure_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the cache recognises by its stamp is not read; when its kept parse turns out
    unusable it is read after all. If that read fails, the run says so, and its result is
    not remembered: the next run reads the file again."""
    tree, base, folder, plain = _cached(tmp_path)
    generation, stored, token, size = loads_store((folder / "files.cache").read_bytes())
    planted = {key: (run, path, pickle.dumps(_Planted())) for key, (run, path, _) in stored.items()}
    (folder / "files.cache").write_bytes(dumps_store((generation, planted, token, size)))
    (folder / "run.cache").unlink()
    backend = str(tree / "bad" / "backend.yaml")
    original = Source.read

    def vanished(self: Source) -> bytes:
        if self.path == backend:
            raise OSError(2, "No such file or directory")
        return original(self)

    with monkeypatch.context() as patch:
        patch.setattr(Source, "read", vanished)
        result = run(
            discover([str(tree)]).sources, Settings(rules=ALL_RULES), cache=Cache(tree, base)
        )
    assert result.errors == [f"{backend}: cannot read: No such file or directory"]
    assert _check(tree, Cache(tree, base)) == plain, "the failed run's result was not kept"


def test_one_changed_byte_is_detected(tmp_path: Path) -> None:
    tree, base, folder, plain = _cached(tmp_path)
    stored = folder / "run.cache"
    data = bytearray(stored.read_bytes())
    assert loads(bytes(data)) is not None
    data[-40] ^= 0x01
    stored.write_bytes(bytes(data))
    assert loads(bytes(data)) is None
    assert _check(tree, Cache(tree, base)) == plain


def test_the_format_round_trips_k8slbs_data(tmp_path: Path) -> None:
    result = run(discover([str(FIXTURES / "demo")]).sources, Settings(rules=ALL_RULES))
    assert loads(dumps(result)) == result


def test_each_project_has_its_own_folder(tmp_path: Path) -> None:
    one, two = Cache(tmp_path / "one", tmp_path / "c"), Cache(tmp_path / "two", tmp_path / "c")
    assert one.folder != two.folder


def test_the_code_fingerprint_counts_the_compiled_builder_and_survives_a_removed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache (and a server) made by other code is never used: the compiled YAML builder is
    k8slb's code too; a link left to a module since removed is not a crash."""
    import k8slb
    from k8slb.run.fingerprint import code_fingerprint

    package = tmp_path / "k8slb"
    (package / "reading").mkdir(parents=True)
    (package / "cli.py").write_text("x = 1\n")
    built = package / "reading" / "_yamltree.cpython-311-x86_64-linux-gnu.so"
    built.write_bytes(b"one build")
    monkeypatch.setattr(k8slb, "__path__", [str(package)])
    first = code_fingerprint()
    built.write_bytes(b"another build")
    assert code_fingerprint() != first
    built.unlink()
    built.symlink_to(tmp_path / "gone.so")
    assert code_fingerprint() not in (first, "")


def test_an_error_of_one_run_is_never_replayed_by_the_next(tmp_path: Path) -> None:
    """A missing --context path, an unwritable report, a missing baseline: errors of that
    run (exit 2), never part of what the cache keeps for the next one (each run its own
    process, as a user's: the cache is written when a command is done)."""
    shutil.copytree(FIXTURES / "demo" / "good", tmp_path / "good")
    folder = str(tmp_path / "good")

    def k8slb(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "k8slb", "check", *args, folder]
        return subprocess.run(command, capture_output=True, text=True, check=False)

    failing = [
        ["--context", str(tmp_path / "typo")],
        ["-o", str(tmp_path / "missing" / "r.txt")],
        ["--baseline", str(tmp_path / "missing.json")],
    ]
    for options in failing:
        assert k8slb(*options).returncode == 2, options
        clean = k8slb()
        assert clean.returncode == 0 and "error" not in clean.stderr, (options, clean.stderr)


def test_a_parse_store_whose_table_of_pickles_is_forged_is_not_read(tmp_path: Path) -> None:
    """The parse store keeps each parse's pickle after its index, by a table of their
    lengths: a table that does not fit the file (a count or a length too large, a length
    cut short), or an index asking for more pickles than the table has, is no store, and
    the run parses afresh, with the right checksum or not."""
    tree, base, folder, plain = _cached(tmp_path)
    store = (folder / "files.cache").read_bytes()
    head, payload = store[:16], store[16:]
    count = int.from_bytes(payload[:4], "big")
    assert count > 0 and loads_store(store) is not None
    lengths = payload[4 : 4 + 8 * count]
    rest = payload[4 + 8 * count :]
    forged = [
        (2**32 - 1).to_bytes(4, "big") + payload[4:],  # more pickles than the file holds
        payload[:4] + (2**63).to_bytes(8, "big") + payload[12:],  # a length past the end
        (count - 1).to_bytes(4, "big") + lengths[8:] + rest,  # one pickle too few
        payload[:3],  # cut short
    ]
    for wrong in forged:
        checked = b"k8slb-cache\n" + zlib.crc32(wrong).to_bytes(4, "big") + wrong
        assert loads_store(checked) is None
        (folder / "files.cache").write_bytes(checked)
        (folder / "run.cache").unlink(missing_ok=True)
        assert _check(tree, Cache(tree, base)) == plain
    assert head.startswith(b"k8slb-cache\n")


def test_a_parse_stores_pickles_are_views_of_the_file_not_copies(tmp_path: Path) -> None:
    """Loaded, each parse's pickle is a view of the store's bytes (what a pre-commit run
    on a large tree no longer copies), and a store written again from those views holds
    the same entries."""
    _, _, folder, _ = _cached(tmp_path)
    store = (folder / "files.cache").read_bytes()
    generation, entries, token, size = loads_store(store)
    assert entries and all(isinstance(blob, memoryview) for _, _, blob in entries.values())
    again = loads_store(dumps_store((generation, entries, token, size)))
    assert again[1].keys() == entries.keys()
    assert all(bytes(again[1][k][2]) == bytes(entries[k][2]) for k in entries)
    assert again[0] == generation and again[2:] == (token, size)
