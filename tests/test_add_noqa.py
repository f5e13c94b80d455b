"""`check --add-noqa`: every finding reported now is silenced where it is, in the file's own
style, byte-faithful elsewhere, refused where a comment would change what the file says,
and a second run changes nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.fixing.noqa import comment_lines
from k8slb.interface.cli import cli

from .go_toolchain import stays_formatted
from .helpers import FIXTURES


def _check(*args: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", *args])
    return done.exit_code, done.output


def _demo(tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(FIXTURES / "demo" / "bad", target)
    return target


def _changed(before: Path, after: Path) -> dict[str, list[tuple[str, str]]]:
    """Per file, the (old, new) lines that differ (the files keep their line count)."""
    changed = {}
    for old in sorted(p for p in before.rglob("*") if p.is_file()):
        new = after / old.relative_to(before)
        pairs = [
            (a, b)
            for a, b in zip(old.read_text().splitlines(), new.read_text().splitlines(), strict=True)
            if a != b
        ]
        if pairs:
            changed[old.relative_to(before).as_posix()] = pairs
    return changed


def test_comments_silence_every_finding_on_its_line_and_a_second_run_changes_nothing(
    tmp_path: Path,
) -> None:
    demo = _demo(tmp_path)
    code, output = _check("--add-noqa", str(demo))
    assert code == 0, output
    assert "Silenced 10 findings in 6 files (10 by comment)." in output
    assert _changed(FIXTURES / "demo" / "bad", demo) == {
        "backend.yaml": [
            ("        - name: server", "        - name: server  # k8slb: ignore[KLB401]"),
            ("          livenessProbe:", "          livenessProbe:  # k8slb: ignore[KLB301]"),
            ("spec:", "spec:  # k8slb: ignore[KLB101]"),
        ],
        "client.py": [
            (
                "channel = grpc.insecure_channel(BACKEND_ADDR)",
                "channel = grpc.insecure_channel(BACKEND_ADDR)  # k8slb: ignore[KLB102]",
            ),
            (
                'inventory = grpc.insecure_channel(os.environ["INVENTORY_ADDR"])',
                'inventory = grpc.insecure_channel(os.environ["INVENTORY_ADDR"])'
                "  # k8slb: ignore[KLB111]",
            ),
        ],
        "checkout/main.go": [
            (
                "\tconn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure."
                "NewCredentials()))",
                "\tconn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure."
                "NewCredentials())) // k8slb: ignore[KLB102]",  # gofmt: one space
            )
        ],
        "inventory.yaml": [("spec:", "spec:  # k8slb: ignore[KLB101]")],
        "inventory/server.py": [
            (
                "    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))",
                "    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))"
                "  # k8slb: ignore[KLB201]",
            )
        ],
        "server.py": [
            (
                "    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))",
                "    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))"
                "  # k8slb: ignore[KLB201]",
            ),
            (
                "        server.wait_for_termination()",
                "        server.wait_for_termination()  # k8slb: ignore[KLB403]",
            ),
        ],
    }
    go_file = Path("checkout", "main.go")
    assert stays_formatted(
        (FIXTURES / "demo" / "bad" / go_file).read_text(), (demo / go_file).read_text()
    )
    assert _check(str(demo))[0] == 0
    snapshot = {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()}
    code, output = _check("--add-noqa", str(demo))
    assert code == 0 and "Silenced 0 findings in 0 files." in output
    assert {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()} == snapshot


def test_annotations_on_the_objects_and_comments_where_there_is_no_object(tmp_path: Path) -> None:
    demo = _demo(tmp_path)
    code, output = _check("--add-noqa", "--noqa-style", "annotation", "--select", "KLB4", str(demo))
    assert code == 0 and "(1 by comment, 1 by annotation)" in output, output
    text = (demo / "backend.yaml").read_text()
    assert "  annotations:\n    k8slb.io/ignore: KLB401\n" in text
    assert "# k8slb: ignore[KLB403]" in (demo / "server.py").read_text()
    assert _check("--select", "KLB4", str(demo))[0] == 0


def test_codes_join_the_comment_or_annotation_already_there(tmp_path: Path) -> None:
    manifest = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    manifest = manifest.replace(
        "        - name: server\n",
        "        - name: server  # k8slb: ignore[KLB302] probed elsewhere\n",
    )
    path = tmp_path / "backend.yaml"
    path.write_text(manifest)
    assert _check("--add-noqa", "--select", "KLB401", str(path))[0] == 0
    assert "- name: server  # k8slb: ignore[KLB302, KLB401] probed elsewhere\n" in path.read_text()

    annotated = manifest.replace(
        "  name: backend\n  namespace: shop\n  labels:",
        "  name: backend\n  namespace: shop\n  annotations:\n"
        '    k8slb.io/ignore: "KLB301; legacy"\n  labels:',
        1,
    )
    assert annotated != manifest
    path.write_text(annotated)
    code, _ = _check("--add-noqa", "--noqa-style", "annotation", "--select", "KLB401", str(path))
    assert code == 0
    assert 'k8slb.io/ignore: "KLB301,KLB401; legacy"' in path.read_text()


def test_crlf_and_the_rest_of_the_file_are_kept(tmp_path: Path) -> None:
    original = (FIXTURES / "demo" / "bad" / "backend.yaml").read_bytes().replace(b"\n", b"\r\n")
    path = tmp_path / "backend.yaml"
    path.write_bytes(original)
    assert _check("--add-noqa", "--select", "KLB401", str(path))[0] == 0
    expected = original.replace(
        b"        - name: server\r\n", b"        - name: server  # k8slb: ignore[KLB401]\r\n"
    )
    assert path.read_bytes() == expected


def test_a_comment_that_would_change_the_file_is_refused() -> None:
    block = "a: |\n  line one\n  line two\nb: 1\n"
    new, refused = comment_lines("x.yaml", block.encode(), {2: {"KLB401"}, 4: {"KLB401"}})
    assert refused == [2], "inside a block scalar the comment would be text"
    assert new.decode() == "a: |\n  line one\n  line two\nb: 1  # k8slb: ignore[KLB401]\n"
    python = 'x = 1 + \\\n    2\ns = """\nkept\n"""\n'
    new, refused = comment_lines("x.py", python.encode(), {1: {"KLB201"}, 4: {"KLB201"}})
    assert refused == [1, 4] and new.decode() == python


def test_add_noqa_refuses_stdin_and_machine_formats(tmp_path: Path) -> None:
    done = CliRunner().invoke(cli, ["check", "--add-noqa", "-"], input="kind: Service\n")
    assert done.exit_code == 2 and "--add-noqa edits files" in done.output
    assert _check("--add-noqa", "--format", "json", str(tmp_path))[0] == 2


@pytest.mark.parametrize(
    "options",
    [["--fix", "--add-noqa"], ["--write-baseline", "--add-noqa"], ["--fix", "--write-baseline"]],
)
def test_two_options_that_write_files_are_refused_before_anything_is_written(
    tmp_path: Path, options: list[str]
) -> None:
    demo = _demo(tmp_path)
    before = {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()}
    code, output = _check(*options, str(demo))
    assert code == 2 and "each write files: give one at a time" in output
    assert {p: p.read_bytes() for p in demo.rglob("*") if p.is_file()} == before
    assert not (tmp_path / ".k8slb-baseline.json").exists()


def test_a_helm_template_is_not_edited_and_the_user_is_told_where(tmp_path: Path) -> None:
    chart = tmp_path / "payments"
    shutil.copytree(FIXTURES / "helm" / "payments", chart)
    before = {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()}
    code, output = _check("--add-noqa", str(chart))
    assert code == 1
    assert "templates/service.yaml:6: a Helm template" in output
    assert {p: p.read_bytes() for p in chart.rglob("*") if p.is_file()} == before


def test_comments_land_on_the_finding_lines_of_files_with_form_feeds_and_line_separators(
    tmp_path: Path,
) -> None:
    """Python numbers lines at \\n and \\r only: a form feed between sections of a module,
    or NEL and the Unicode line separator in a comment, start no new line there (str's
    splitlines would start one, and every comment below would go a line too high). libyaml
    does end a line at NEL: a YAML comment holding one moves the findings below it down."""
    demo = _demo(tmp_path)
    server = demo / "server.py"
    lines = server.read_text().splitlines(keepends=True)
    lines.insert(2, "\f\n")
    lines.insert(3, "# a section\x85 of the module\u2028 with separators\n")
    server.write_text("".join(lines))
    backend = demo / "backend.yaml"
    backend.write_text("# a note\x85\n" + backend.read_text())
    before = _check("--format", "json", str(demo))
    code, output = _check("--add-noqa", str(demo))
    assert code == 0, output
    assert "Silenced 10 findings in 6 files (10 by comment)." in output
    assert _check(str(demo))[0] == 0, "nothing is left to report"
    assert before[0] == 1
    kept = server.read_text().split("\n")[2:4]
    assert kept == ["\f", "# a section\x85 of the module\u2028 with separators"]
