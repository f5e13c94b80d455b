"""Where `k8slb lsp` says a finding is: k8slb's lines (numbered as the file's parser
numbers them) and columns (characters) become LSP's (lines ended at \\n, \\r\\n or \\r;
columns in the code units agreed with the client); the parses the server keeps are those
its last judgement used; and a file changed on disk is judged only if a judgement reads
it."""

from __future__ import annotations

import shutil
from pathlib import Path

from k8slb.interface.lsp.positions import Text, path_of, same_lines
from k8slb.interface.lsp.state import SessionMemo, Workspace
from k8slb.run.cache import ParseMemo
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from .helpers import FIXTURES

UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)
UTF32 = PositionCodec(types.PositionEncodingKind.Utf32)


def test_a_column_after_an_astral_character_counts_it_twice_in_utf16_once_in_utf32() -> None:
    source = 'x = "😋"; c = grpc.insecure_channel(a)\n'
    column = source.index("grpc") + 1  # k8slb's: characters, 1-based
    for codec, expected in ((UTF16, column), (UTF32, column - 1)):
        text = Text("client.py", source, codec)
        assert text.position(text.offset(1, column)) == types.Position(0, expected)


def test_a_yaml_line_break_lsp_does_not_know_moves_the_line_not_the_finding() -> None:
    """YAML (str.splitlines) ends a line at U+2028; LSP does not: k8slb's third line is
    the editor's second."""
    source = "a: 1\u2028b: 2\nc: [\n"
    text = Text("x.yaml", source, UTF16)
    assert text.position(text.offset(3, 4)) == types.Position(1, 3)


def test_lsp_lines_end_at_a_lone_carriage_return_too() -> None:
    source = "a: 1\rb: 2\r\nc: 3\n"
    text = Text("x.yaml", source, UTF16)
    assert text.position(source.index("c")) == types.Position(2, 0)
    assert text.position(source.index("b")) == types.Position(1, 0)


def test_a_finding_s_range_ends_where_its_line_s_text_does() -> None:
    source = "spec:\n  type: ClusterIP   \r\nnext: 1\n"
    text = Text("x.yaml", source, UTF16)
    start = text.offset(2, 3)
    assert text.range(start, text.line_end(start)) == types.Range(
        types.Position(1, 2), types.Position(1, len("  type: ClusterIP"))
    )


def test_a_position_past_the_text_stays_in_it() -> None:
    text = Text("x.yaml", "a: 1\n", UTF16)
    assert text.position(text.offset(40, 40)) == types.Position(1, 0)


def test_only_file_uris_name_files() -> None:
    assert path_of("file:///tmp/a%20b/x.yaml") == "/tmp/a b/x.yaml"
    assert path_of("untitled:Untitled-1") is None
    assert path_of("git:/tmp/x.yaml?ref") is None


def test_a_code_action_at_the_cursor_takes_the_findings_of_its_line() -> None:
    finding = types.Range(types.Position(4, 10), types.Position(4, 30))
    assert same_lines(finding, types.Range(types.Position(4, 0), types.Position(4, 0)))
    assert not same_lines(finding, types.Range(types.Position(5, 0), types.Position(5, 0)))


def test_the_session_keeps_only_the_parses_the_last_judgement_used() -> None:
    memo = SessionMemo()
    key = ParseMemo.file_key  # the key of some bytes (a session hashes each once)
    memo.store("a.yaml", b"one", "parse of one")  # the first judgement parses both
    memo.store("b.yaml", b"kept", "parse of b")
    memo.forget_unused()
    assert set(memo.used) == {key("a.yaml", b"one"), key("b.yaml", b"kept")}
    assert memo.parsed("b.yaml", b"kept") == "parse of b"  # a keystroke later: b unchanged
    memo.store("a.yaml", b"two", "parse of two")  # and a's new text
    memo.forget_unused()
    assert set(memo.used) == {key("a.yaml", b"two"), key("b.yaml", b"kept")}
    memo.forget_unused()  # a judgement that read no parse (its files' bytes as they were)
    assert set(memo.used) == {key("a.yaml", b"two"), key("b.yaml", b"kept")}


def test_a_file_changed_on_disk_is_judged_only_if_a_judgement_reads_it(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", root)
    folder = Workspace(str(root))
    folder.plan()

    def calls(name: str, *, added_or_gone: bool = False) -> str | None:
        return folder.touched(str(root / name), added_or_gone=added_or_gone)

    assert calls("backend.yaml") == "judge"
    assert calls("checkout/main.go") == "judge"
    assert calls(".k8slb.yaml") == calls("pyproject.toml") == calls(".gitignore") == "plan"
    assert calls("new.yaml", added_or_gone=True) == "plan"  # a file to find
    assert calls("backend.yaml", added_or_gone=True) == "plan"  # gone
    assert calls(".git/index") is None
    assert calls("notes.txt", added_or_gone=True) is None


def test_a_judgement_of_what_was_judged_already_is_the_last_one(tmp_path: Path) -> None:
    """A save of the text just judged reads the same bytes: no rule runs again. Any byte
    changed, in a buffer or on disk, is judged anew."""
    root = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", root)
    folder = Workspace(str(root))
    folder.plan()
    first = folder.judge()
    assert first is not None and folder.judge() is first
    client = root / "client.py"
    folder.open(str(client), client.read_text("utf-8"))  # opened as it is on disk
    assert folder.judge() is first
    folder.open(str(client), client.read_text("utf-8") + "\n")
    edited = folder.judge()
    assert edited is not first and folder.judge() is edited
    (root / "server.py").write_text("")  # on disk, the editor told nothing
    assert folder.judge() is not edited


def test_the_session_hashes_a_file_again_only_when_its_bytes_are_other_bytes() -> None:
    memo = SessionMemo()
    data = b"kind: Service\n"
    first = memo.file_key("a.yaml", data)
    assert memo.file_key("a.yaml", data) == first == ParseMemo.file_key("a.yaml", data)
    assert memo.file_key("a.yaml", b"kind: Pod\n") == ParseMemo.file_key("a.yaml", b"kind: Pod\n")
    assert memo.file_key("a.yaml", bytes(data)) == first  # equal bytes, read again: the same key


def test_a_file_is_read_again_only_when_its_stamp_changed(tmp_path: Path) -> None:
    """The workspace keeps each file's bytes with its stamp (times, size, inode): a
    judgement reads only what changed on disk, and a change the watcher reports is read
    whatever the stamp says."""
    root = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", root)
    folder = Workspace(str(root))
    folder.plan()
    sources = folder.sources()
    first = folder._read(sources)
    again = folder._read(sources)
    path = str(root / "backend.yaml")
    assert again[path] is first[path]  # not read again
    (root / "backend.yaml").write_bytes(first[path] + b"# more\n")
    assert folder._read(sources)[path] == first[path] + b"# more\n"
    kept = folder._read(sources)[path]
    folder.touched(path, added_or_gone=False)  # the watcher's word
    assert folder._read(sources)[path] is not kept
