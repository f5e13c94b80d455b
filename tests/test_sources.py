"""Finding files: folders walked recursively, .gitignore honoured, explicit files kept."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from k8slb.reading.sources import discover, with_context


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("a: 1\n")


def shown(root: Path, *paths: str) -> list[tuple[str, str]]:
    found = discover([str(root / p) if p != "." else str(root) for p in paths or ["."]])
    return [(str(Path(s.path).relative_to(root)), s.language) for s in found.sources]


def test_folders_give_yaml_and_python_files_in_sorted_order(tmp_path: Path) -> None:
    """README.md is a build file (its shell blocks' `docker build` lines), not reported on."""
    make(tmp_path, "b.yml", "a.yaml", "sub/c.YAML", "app/main.py", "README.md", "chart.json")
    found = discover([str(tmp_path)]).sources
    assert [s.report for s in found if s.path.endswith("README.md")] == [False]
    assert shown(tmp_path) == [
        ("README.md", "build"),
        ("a.yaml", "yaml"),
        ("b.yml", "yaml"),
        ("app/main.py", "python"),
        ("sub/c.YAML", "yaml"),
    ]


def test_gitignore_is_honoured_with_negation_and_nesting(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("rendered/\n*.gen.yaml\n!keep.gen.yaml\n")
    make(
        tmp_path,
        "rendered/x.yaml",
        "a.gen.yaml",
        "keep.gen.yaml",
        "ok.yaml",
        "deep/skip.yaml",
        "deep/ok.yaml",
    )
    (tmp_path / "deep" / ".gitignore").write_text("skip.yaml\n")
    assert [p for p, _ in shown(tmp_path)] == ["keep.gen.yaml", "ok.yaml", "deep/ok.yaml"]


def test_a_gitignore_that_ignores_all_but_what_it_names_keeps_the_folders_it_takes_back(
    tmp_path: Path,
) -> None:
    """`*` then `!*/`: every folder taken back, as git does (the last pattern that
    matches a folder decides), so the files `!*.*` keeps are read at any depth; a
    folder a later line ignores again stays out."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("# all but files with a suffix\n*\n!*.*\n!*/\nlogs\n")
    make(tmp_path, "deploy.yaml", "svc/orders/api/main.py", "svc/logs/x.yaml", "svc/notes")
    assert [p for p, _ in shown(tmp_path)] == ["deploy.yaml", "svc/orders/api/main.py"]


def test_gitignore_above_the_scanned_folder_applies_inside_the_repository(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated.yaml\n")
    make(tmp_path, "k8s/generated.yaml", "k8s/app.yaml")
    found = discover([str(tmp_path / "k8s")])
    assert [Path(s.path).name for s in found.sources] == ["app.yaml"]


def test_vcs_virtualenv_and_cache_folders_are_skipped(tmp_path: Path) -> None:
    make(tmp_path, ".git/x.yaml", ".venv/lib/y.yaml", "node_modules/z.yaml", "ok.yaml")
    assert [p for p, _ in shown(tmp_path)] == ["ok.yaml"]


def test_an_explicit_file_is_linted_whatever_its_name(tmp_path: Path) -> None:
    make(tmp_path, "install.golden", "tool.py")
    assert shown(tmp_path, "install.golden", "tool.py") == [
        ("install.golden", "yaml"),
        ("tool.py", "python"),
    ]


def test_paths_keep_the_form_the_user_gave_and_files_are_not_repeated(tmp_path: Path) -> None:
    make(tmp_path, "m/a.yaml")
    found = discover([str(tmp_path / "m"), str(tmp_path / "m" / "a.yaml")])
    assert [s.path for s in found.sources] == [str(tmp_path / "m" / "a.yaml")]


def test_missing_paths_and_broken_links_are_errors(tmp_path: Path) -> None:
    (tmp_path / "dangling.yaml").symlink_to(tmp_path / "nowhere.yaml")
    found = discover([str(tmp_path / "missing.yaml"), str(tmp_path / "dangling.yaml")])
    assert found.sources == []
    assert found.errors == [
        f"{tmp_path}/missing.yaml: no such file or directory",
        f"{tmp_path}/dangling.yaml: broken symbolic link",
    ]


def test_stdin_is_a_source(tmp_path: Path) -> None:
    found = discover(["-"], stdin_filename="rendered.yaml")
    assert [(s.path, s.language, s.location) for s in found.sources] == [
        ("rendered.yaml", "yaml", None)
    ]


def test_the_current_folder_gives_paths_without_a_dot_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make(tmp_path, "a.yaml", "sub/b.yaml")
    monkeypatch.chdir(tmp_path)
    assert [s.path for s in discover(["."]).sources] == ["a.yaml", "sub/b.yaml"]


def _unread(root: Path) -> dict[str, str | None]:
    return {str(Path(s.path).relative_to(root)): s.unread for s in discover([str(root)]).sources}


def test_links_are_read_only_when_their_target_stays_in_the_scanned_folder(
    tmp_path: Path,
) -> None:
    root, outside = tmp_path / "repo", tmp_path / "outside"
    make(root, "real.yaml", "sub/other.yaml")
    make(outside, "secret.yaml", "folder/deep.yaml")
    (root / "inside.yaml").symlink_to("sub/other.yaml")
    (root / "escape.yaml").symlink_to(outside / "secret.yaml")
    (root / "relative.yaml").symlink_to("../outside/secret.yaml")
    (root / "broken.yaml").symlink_to("nowhere.yaml")
    (root / "folder").symlink_to(outside / "folder", target_is_directory=True)
    assert _unread(root) == {
        "broken.yaml": "a broken symbolic link (to nowhere.yaml): not read",
        "escape.yaml": "a symbolic link to a file outside the scanned folder: not read",
        "inside.yaml": None,
        "real.yaml": None,
        "relative.yaml": "a symbolic link to a file outside the scanned folder: not read",
        "sub/other.yaml": None,
    }, "and a link to a folder is not followed"


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    make(tmp_path, "ok.yaml")
    os.mkfifo(tmp_path / "x.yaml")
    assert _unread(tmp_path) == {
        "ok.yaml": None,
        "x.yaml": "a FIFO, not a regular file: not read",
    }


def test_a_folder_that_cannot_be_read_is_an_error_not_silence(tmp_path: Path) -> None:
    """Here: a tree deeper than PATH_MAX (built one step at a time, through folder
    descriptors); an unreadable folder takes the same path, and root reads every folder."""
    deep, fd = tmp_path, os.open(tmp_path, os.O_RDONLY)
    while len(str(deep)) < 4200:
        os.mkdir("d" * 200, dir_fd=fd)
        fd, old = os.open("d" * 200, os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
        deep = deep / ("d" * 200)
    os.close(fd)
    found = discover([str(tmp_path)])
    assert len(found.errors) == 1 and "cannot read folder" in found.errors[0], found.errors
    named = discover([str(deep / "x.yaml")])
    assert named.errors and "name too long" in named.errors[0]


def test_a_named_endless_file_is_refused_not_read_into_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k8slb.reading import sources

    monkeypatch.setattr(sources, "MAX_FILE_BYTES", 1024)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: 1\n" * 400)
    (source,) = discover([str(big)]).sources
    with pytest.raises(OSError, match="larger than"):
        source.read()
    (zero,) = discover(["/dev/zero"]).sources
    with pytest.raises(OSError, match="larger than"):
        zero.read()


@pytest.mark.parametrize("size", [0, 1, 1023, 1024, 1025, 5000])
def test_a_file_is_read_whole_up_to_the_limit_and_refused_past_it(
    tmp_path: Path, size: int
) -> None:
    from k8slb.reading.bounded import read_bounded

    path = tmp_path / "f"
    path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
    for buffering in (-1, 0):  # buffered, and unbuffered as a source reads its file
        with open(path, "rb", buffering=buffering) as handle:
            data = read_bounded(handle, 1024)
        assert data == (path.read_bytes() if size <= 1024 else None)


def test_a_stream_is_read_in_chunks_to_its_end_or_the_limit() -> None:
    """A pipe has no size to ask for: what arrives is read a chunk at a time."""
    import io

    from k8slb.reading.bounded import CHUNK, read_bounded

    text = b"k: v\n" * (CHUNK // 2)  # more than two chunks
    assert read_bounded(io.BytesIO(text), len(text)) == text
    assert read_bounded(io.BytesIO(text), len(text) - 1) is None


def test_a_short_read_is_not_taken_for_the_end() -> None:
    """A pipe (or a file still being written) may give fewer bytes than asked before its
    end: reading goes on until a read gives nothing."""
    import io

    from k8slb.reading.bounded import read_bounded

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.data = data

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            piece, self.data = self.data[:3], self.data[3:]  # three bytes at a time
            return piece

    text = b"a: 1\nb: 2\n"
    assert read_bounded(Trickle(text), 100) == text  # type: ignore[arg-type]
    assert read_bounded(Trickle(text), len(text) - 1) is None  # type: ignore[arg-type]


def test_context_adds_the_other_files_once_and_reports_only_the_named_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-commit hook names changed files with the repository as context: a named file
    is not read a second time as context, however it is spelled (relative, through a
    linked folder); a link or a hard link under another name is another file, as a
    whole-tree run reads it."""
    make(tmp_path, "repo/a.yaml", "repo/sub/b.yaml")
    repo = tmp_path / "repo"
    (tmp_path / "alias").symlink_to(repo)
    os.link(repo / "a.yaml", repo / "hard.yaml")
    (repo / "link.yaml").symlink_to("a.yaml")
    named = str(tmp_path / "alias" / "sub" / "b.yaml")
    monkeypatch.chdir(repo)
    found = with_context(discover(["a.yaml", named]), discover(["."], report=False))
    assert [(s.path, s.report) for s in found.sources] == [
        ("a.yaml", True),
        (named, True),
        ("hard.yaml", False),
        ("link.yaml", False),
    ]
    assert [s.path for s in discover(["."]).sources] == [
        "a.yaml",
        "hard.yaml",
        "link.yaml",
        "sub/b.yaml",
    ], "as a whole-tree run reads them"


def test_a_context_with_no_helmfile_is_added_without_making_each_path_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A context file is left out only where a helmfile renders its chart itself: with
    none, a pre-commit hook's 10,000 context files had each its path made absolute."""
    for number in range(40):
        make(tmp_path, f"app-{number}.yaml")
    monkeypatch.chdir(tmp_path)
    named, context = discover(["app-0.yaml"]), discover(["."], report=False)
    made: list[str] = []
    absolute = os.path.abspath
    monkeypatch.setattr(os.path, "abspath", lambda p: made.append(p) or absolute(p))
    found = with_context(named, context)
    assert [(s.path, s.report) for s in found.sources][:2] == [
        ("app-0.yaml", True),
        ("app-1.yaml", False),
    ]
    assert len(found.sources) == 40
    assert len(made) < 40
