"""Input built to break a linter: k8slb answers every such file with a finding or a
refusal, in bounded time, and never with a crash, a hang or a traceback that looks like
findings. Run through real processes where a native crash would kill the test runner."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli
from k8slb.reading import manifests
from k8slb.reading.sources import discover
from k8slb.rules import ALL_RULES
from k8slb.rules.no_prestop import NoPreStop
from k8slb.run import engine
from k8slb.run.settings import Settings

from .helpers import FIXTURES, lint_files, within_cpu

BACKEND = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()


def _k8slb(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "k8slb", *args],
        capture_output=True,
        text=True,
        check=False,
        cwd=cwd,
        timeout=60,
        env={**os.environ, **env},
    )


@pytest.mark.parametrize(
    "text",
    ["[" * 28_000, "- " * 30_000 + "x", "a: 1\n---\n" + "{a: " * 20_000],
    ids=["flow", "block", "second-document"],
)
def test_yaml_nested_past_the_native_stack_is_klb001_not_a_crash(tmp_path: Path, text: str) -> None:
    # a manifest's key, so an error (a file with neither key is said at info as no
    # Kubernetes input: tests/test_broken_yaml_no_input.py)
    (tmp_path / "deep.yaml").write_text("apiVersion: v1\nkind: List\nitems: []\n---\n" + text)
    done = _k8slb("check", "--isolated", "--no-cache", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "KLB001" in done.stdout and "nesting deeper than 200 levels" in done.stdout


@pytest.mark.parametrize(
    "text",
    ["a: " + "{ " * 100_000, "a:\n" + "  {\n" * 100_000, "- [ {" * 50_000],
    ids=["one-line", "a-line-each", "mixed"],
)
def test_unclosed_flow_mappings_are_klb001_before_the_scanner_squares_them(
    tmp_path: Path, text: str
) -> None:
    """libyaml's scanner looks at every open flow mapping at each token: 200 KB of `{`
    took it some 40 s before the nesting limit was met. The check and the fixer's read
    both refuse the text first, at the bracket past the limit."""
    (tmp_path / "deep.yaml").write_text(text)
    for command in (["check"], ["fix", "--diff"]):
        arguments = [*command, "--isolated", "--no-cache", str(tmp_path)]
        done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=15)
        assert done.returncode in (0, 1), done.stderr  # fix --diff: nothing to fix, 0
        said = done.stdout + done.stderr
        assert "KLB001" in said or "1 finding remains" in said


@pytest.mark.parametrize(
    "text",
    [
        "{{" * 500_000,
        "{{\n" * 300_000,
        'a: "' + "{{ x }} : {{\n" * 80_000 + '"\n',
        'a: "{{ x }}\n : {{ b"\n: [\n---\n' * 30_000,
    ],
    ids=["one-line", "lines", "one-quoted-value", "broken-documents"],
)
def test_a_megabyte_of_template_braces_is_read_in_linear_time(tmp_path: Path, text: str) -> None:
    # each `{{` the lines name is confirmed by YAML's scanner: never once per document
    (tmp_path / "braces.yaml").write_text(text)
    arguments = ["check", "--isolated", "--no-cache", str(tmp_path)]
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=15)
    assert done.returncode in (0, 1), done.stderr


def test_the_flow_scan_passes_over_quotes_comments_and_block_scalars() -> None:
    from k8slb.reading.yamlcompose import MAX_NESTING, flow_too_deep

    many = MAX_NESTING + 50
    assert flow_too_deep("a: '" + "{" * many + "'\n") is None
    assert flow_too_deep('a: "' + "[{" * many + '"\n') is None
    assert flow_too_deep("a: 1 # " + "{" * many + "\n") is None
    assert flow_too_deep("script: |\n" + "  if x {\n" * many + "b: 1\n") is None
    assert flow_too_deep("rows: [\n" + "  {a: 1, b: [2]},\n" * many + "]\n") is None
    assert flow_too_deep("a: " + "{" * many) == (1, 3 + MAX_NESTING + 1)


@pytest.mark.parametrize(
    "code",
    ["x = " + "(" * 5_000, "x = " + "f(" * 900 + ")" * 900, "x = " + 'f(")", ' * 900],
    ids=["unclosed", "closed", "closers-in-strings"],
)
def test_python_nested_past_the_tokenizer_is_klb004_quickly(tmp_path: Path, code: str) -> None:
    (tmp_path / "deep.py").write_text("import grpc\n" + code + "\n")
    done = _k8slb("check", "--isolated", "--no-cache", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "KLB004 [error] not valid Python: too many nested parentheses" in done.stdout


def test_a_javascript_file_of_nested_syntax_errors_is_klb004_quickly(tmp_path: Path) -> None:
    # 1 MB of an import line then `(` with no closer: each `(` an error inside the last,
    # where asking every error's ancestors was quadratic (half a minute)
    code = "const grpc = require('@grpc/grpc-js')\nnew grpc.Server()\n"
    (tmp_path / "index.js").write_text(code + "import x from 'y'\n\n(" * 50_000)
    done = _k8slb("check", "--isolated", "--no-cache", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "KLB004 [error] not valid JavaScript: a syntax error at line 1" in done.stdout


def test_go_functions_nested_past_a_hundred_are_klb004_info_quickly(tmp_path: Path) -> None:
    # a server in each of 3,000 closures nested: the reader climbed each name's parents,
    # which tree-sitter finds from the root (minutes); past about 100 the file is unread
    # (here 120, which nest less than the 1,000 levels of any code's limit)
    opened = "\tfunc() {\n\t\ts := grpc.NewServer()\n\t\ts.Serve(nil)\n" * 120
    code = 'package main\n\nimport "google.golang.org/grpc"\n\nfunc main() {\n'
    (tmp_path / "main.go").write_text(code + opened + "\t}()\n" * 120 + "}\n")
    done = _k8slb("check", "--isolated", "--no-cache", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "KLB004 [info] not analysed: functions and blocks nested too deep" in done.stdout


GO_SERVER = (
    'package main\n\nimport "google.golang.org/grpc"\n\nfunc main() {\n\ts := grpc.NewServer()\n'
)


@pytest.mark.parametrize(
    ("name", "code", "language"),
    [
        # a query over 40,000 `if`s nested in each other took 12 s in tree-sitter's engine
        ("main.go", GO_SERVER + "if err != nil {\n" * 40_000 + "}\n" * 40_001, "Go"),
        # each of 20,000 literals asked for its parent, found from the root: 28 s
        ("main.go", GO_SERVER + "x := " + "T{" * 20_000 + "}" * 20_000 + "\n}\n", "Go"),
        (
            "index.js",
            "const grpc = require('@grpc/grpc-js');\nconst x = "
            + "{a: " * 100_000
            + "1"
            + "}" * 100_000,
            "JavaScript",
        ),
        (
            "Main.java",
            "import io.grpc.*;\nclass Main { Object x = a" + ".f()" * 100_000 + "; }\n",
            "Java",
        ),
        (
            "Main.kt",
            "import io.grpc.ManagedChannelBuilder\nval x = " + "(" * 50_000 + "1" + ")" * 50_000,
            "Kotlin",
        ),
    ],
    ids=["go-ifs", "go-literals", "javascript-objects", "java-chain", "kotlin-parentheses"],
)
def test_code_nested_past_a_thousand_levels_is_klb004_info_quickly(
    tmp_path: Path, name: str, code: str, language: str
) -> None:
    (tmp_path / name).write_text(code + "\n")
    arguments = ["check", "--isolated", "--no-cache", str(tmp_path)]
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=6)
    assert done.returncode == 0, done.stderr
    said = f"KLB004 [info] not analysed: {language} code nested more than 1000 levels deep"
    assert said in done.stdout


def test_a_syntax_error_nested_past_a_thousand_levels_is_the_files(tmp_path: Path) -> None:
    # asking whether the grammar made the error of valid code (its parents) crashed
    # tree-sitter's binding 100,000 levels down (one opening a line: on one line of 400 KB
    # the file is what a minifier writes, which KLB004 tells at info)
    code = "const grpc = require('@grpc/grpc-js');\nconst x = " + "{a:\n" * 100_000
    (tmp_path / "index.js").write_text(code + "}" * 100_000 + "\n")
    arguments = ["check", "--isolated", "--no-cache", str(tmp_path)]
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=6)
    assert done.returncode == 1, done.stderr
    assert "KLB004 [error] not valid JavaScript: a syntax error at line" in done.stdout


def test_code_nested_as_deep_as_real_code_is_read(tmp_path: Path) -> None:
    # a string built of 600 pieces nests some 600 levels, as generated code may: read, and
    # the server below it found
    pieces = " +\n".join(f'\t\t"line {i}\\n"' for i in range(600))
    code = GO_SERVER + f"\tdoc := {pieces}\n\t_ = doc\n\ts.Serve(nil)\n}}\n"
    (tmp_path / "main.go").write_text(code)
    done = _k8slb("check", "--isolated", "--no-cache", "--select", "KLB004,KLB201", str(tmp_path))
    assert "KLB004" not in done.stdout
    assert "KLB201" in done.stdout


def test_a_file_tree_sitter_parses_past_its_limit_is_klb004_info(tmp_path: Path) -> None:
    # tree-sitter's recovery from `x!x!x!...` in TypeScript: 400 KB took 7.7 s to parse
    code = "import * as grpc from '@grpc/grpc-js';\n" + "x!" * 200_000 + "\n"
    (tmp_path / "index.ts").write_text(code)
    arguments = ["check", "--isolated", "--no-cache", str(tmp_path)]
    command = ["env", "K8SLB_PARSE_SECONDS=1", sys.executable, "-m", "k8slb", *arguments]
    done = within_cpu(command, cpu_seconds=5)
    assert done.returncode == 0, done.stderr
    assert (
        "KLB004 [info] not analysed: tree-sitter took more than 1 s of CPU to parse this "
        "TypeScript file (K8SLB_PARSE_SECONDS)" in done.stdout
    )


def test_a_parse_stopped_by_its_limit_leaves_the_parser_to_the_next_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from k8slb.code.syntax_trees import parsed
    from k8slb.languages.javascript.parse import parser_for

    monkeypatch.setenv("K8SLB_PARSE_SECONDS", "0.2")
    parser = parser_for("index.ts")()
    assert parsed(parser, b"x!" * 200_000) is None
    tree = parsed(parser, b"const a = 1;\n")
    assert tree is not None and not tree.has_error and tree.text == b"const a = 1;\n"


def test_a_python_file_in_an_undeclared_encoding_says_so(tmp_path: Path) -> None:
    result = lint_files(tmp_path, {"app.py": b'import grpc\nname = "caf\xe9"\n'})
    [finding] = result.findings
    assert (finding.rule, finding.line, finding.column) == ("KLB004", 2, 12)
    assert "byte 0xe9 is not utf-8" in finding.text


def test_fix_writes_a_latin1_python_file_back_in_latin1(tmp_path: Path) -> None:
    source = (
        b"# -*- coding: latin-1 -*-\nimport grpc\nname = 'caf\xe9'\n"
        b"server = grpc.server(None)\nserver.start()\nserver.wait_for_termination()\n"
    )
    (tmp_path / "server.py").write_bytes(source)
    done = CliRunner().invoke(cli, ["fix", "--isolated", str(tmp_path)])
    assert done.exit_code == 1, done.output  # KLB403 remains (unsafe)
    fixed = (tmp_path / "server.py").read_bytes()
    assert b"name = 'caf\xe9'" in fixed and b"grpc.max_connection_age_ms" in fixed
    sarif = CliRunner().invoke(cli, ["check", "--isolated", "--format", "sarif", str(tmp_path)])
    assert sarif.exit_code == 1, sarif.output


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-be", "utf-32"])
def test_fix_keeps_a_utf16_or_utf32_file_in_its_encoding(tmp_path: Path, codec: str) -> None:
    bom = {"utf-16-be": "\ufeff"}.get(codec, "")
    data = (bom + BACKEND).encode(codec)
    (tmp_path / "backend.yaml").write_bytes(data)
    sarif = CliRunner().invoke(cli, ["check", "--isolated", "--format", "sarif", str(tmp_path)])
    assert '"insertedContent"' in sarif.output
    CliRunner().invoke(cli, ["fix", "--isolated", str(tmp_path)])
    fixed = (tmp_path / "backend.yaml").read_bytes()
    assert fixed[:4] == data[:4], "the byte-order mark and the byte order stay"
    text = fixed.decode(codec).lstrip("\ufeff")
    assert "backend-headless" in text and text.startswith(BACKEND.splitlines()[0])


def test_a_mapping_where_a_namespace_belongs_does_not_crash_fix(tmp_path: Path) -> None:
    (tmp_path / "backend.yaml").write_text(BACKEND.replace("namespace: shop", "namespace: {}", 1))
    done = CliRunner().invoke(cli, ["fix", "--isolated", "--diff", str(tmp_path)])
    assert done.exception is None or isinstance(done.exception, SystemExit), done.output
    assert done.exit_code == 1


def test_an_internal_error_in_a_rule_is_exit_2_and_the_other_rules_still_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / "demo")

    def broken(self: object, context: object) -> object:
        raise KeyError("spec")

    monkeypatch.setattr(NoPreStop, "check", broken)
    done = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", str(tmp_path)])
    assert done.exit_code == 2
    assert "KLB101" in done.stdout and "KLB401" not in done.stdout
    [line] = done.stderr.splitlines()
    assert line.startswith("k8slb: error: internal error while running rule KLB401 (KeyError")
    assert "please report it" in line


def test_an_internal_error_reading_one_file_leaves_the_others_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / "demo")
    original = manifests.load_manifests

    def flaky(path: str, data: bytes) -> manifests.ManifestFile:
        if path.endswith("backend.yaml"):
            raise RuntimeError("boom")
        return original(path, data)

    monkeypatch.setattr("k8slb.inputs.plain.load_manifests", flaky)
    result = engine.run(discover([str(tmp_path)]).sources, Settings(rules=ALL_RULES))
    assert any("internal error while reading" in e and "backend.yaml" in e for e in result.errors)
    assert result.findings, "the other files are linted"


def test_an_internal_error_reading_a_dockerfile_leaves_the_others_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Dockerfile's facts are a parse like any file's: a bug reading them is that file's
    internal error, and the run goes on without them (the link falls back on the rest)."""
    from k8slb.reading import build_files

    shutil.copytree(FIXTURES / "demo" / "bad", tmp_path / "demo")

    def broken(path: str, text: str) -> build_files.Dockerfile:
        raise RuntimeError("boom")

    monkeypatch.setattr(build_files, "parse_dockerfile", broken)
    result = engine.run(discover([str(tmp_path)]).sources, Settings(rules=ALL_RULES))
    assert any("internal error while reading" in e and "Dockerfile" in e for e in result.errors)
    assert result.findings, "the other files are linted"


def test_an_uncaught_internal_error_is_one_line_and_exit_2_with_the_trace_on_demand(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text(BACKEND)
    code = (
        "import sys; from k8slb.interface import cli\n"
        "def boom(*a, **k): raise ZeroDivisionError('x')\n"
        "from k8slb.run import engine\nengine.run = boom\n"
        "sys.argv = ['k8slb', 'check', '--isolated', sys.argv[1]]\ncli.main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "internal error while running k8slb" in done.stderr
    debug = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "K8SLB_DEBUG": "1"},
    )
    assert debug.returncode == 2 and "Traceback" in debug.stderr


CRASHING_WORKER = """
import os, signal, sys
from k8slb.interface import cli
from k8slb.run import parsing
parent, original, pids = os.getpid(), parsing.parse_one, sys.argv[2]
def crashing(path, language, data):
    if os.getpid() != parent:
        open(os.path.join(pids, str(os.getpid())), "w").close()
        marker = os.path.join(pids, os.pardir, "crashed")  # the first server.py a worker meets
        if path.endswith("server.py") and not os.path.exists(marker):
            with open(marker, "w") as handle:
                handle.write(path)
        if os.path.exists(marker) and open(marker).read() == path:
            os.kill(os.getpid(), signal.SIGSEGV)  # what a native stack overflow does
    return original(path, language, data)
parsing.parse_one = crashing
parsing.fork_pays = lambda items, jobs: True  # a pool however little the tree's parse costs
sys.argv = ["k8slb", "check", "--isolated", "--no-cache", "-q", "-j", "2", sys.argv[1]]
cli.main()
"""


def test_a_parser_process_that_dies_costs_one_file_and_leaves_no_process_behind(
    tmp_path: Path,
) -> None:
    tree, pids = tmp_path / "tree", tmp_path / "pids"
    pids.mkdir()
    for copy in range(110):  # above the pool's least file count
        shutil.copytree(FIXTURES / "demo" / "bad", tree / f"team-{copy}")
    done = subprocess.run(
        [sys.executable, "-c", CRASHING_WORKER, str(tree), str(pids)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 2
    crashed = (tmp_path / "crashed").read_text()
    [error] = done.stderr.splitlines()
    assert "internal error while reading" in error and f"{crashed} (the process died)" in error
    others = [p for p in tree.rglob("server.py") if str(p) != crashed]
    assert all(f"{p}:" in done.stdout for p in others), "every other file is linted"
    assert list(pids.iterdir()), "the files were parsed in worker processes"
    for pid in pids.iterdir():
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid.name), 0)


def test_a_chart_that_renders_for_ever_is_stopped_and_the_rest_is_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from k8slb.reading import render_process

    monkeypatch.setattr(render_process, "TIMEOUT", 2.0)
    for name, template in (
        ("endless", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n"),
        (
            "plain",
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
            "spec: {sessionAffinity: ClientIP, selector: {a: b}}\n",
        ),
    ):
        (tmp_path / name / "templates").mkdir(parents=True)
        (tmp_path / name / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 1\n")
        (tmp_path / name / "templates" / "x.yaml").write_text(template)
    started = time.monotonic()
    done = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", str(tmp_path)])
    assert time.monotonic() - started < 20
    stopped = next(line for line in done.output.splitlines() if "endless is not rendered" in line)
    # Stopped by its 2 s of CPU, or, on a machine so busy that the renderer got under a
    # quarter of a core, by the wall clock's guard at four times that: either is a stop.
    assert stopped.endswith("rendering used over 2 s of CPU: stopped") or (
        "rendering took over 8 s of wall time" in stopped
    ), stopped
    assert "KLB104" in done.output, "the other chart is rendered and linted"


def test_a_backtracking_glob_does_not_stall_the_run(tmp_path: Path) -> None:
    """One `.gitignore` line and one long name: with a backtracking regular expression the
    walk takes minutes (polynomial in the name's length); matched in linear time it is
    done at once. The same for `per-file-ignores`. (A hang guard, not a timing goal.)"""
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*a*a*a*a*a*a*a*b\n")
    (tmp_path / ".k8slb.yaml").write_text('per-file-ignores:\n  "*a*a*a*a*a*a*a*b": [KLB401]\n')
    (tmp_path / ("a" * 120 + ".yaml")).write_text(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"
    )
    done = _k8slb("check", "--no-cache", ".", cwd=tmp_path)  # fails after 60 s
    assert done.returncode == 0, done.stdout + done.stderr


def test_toml_keys_of_thousands_of_parts_are_refused_before_they_are_parsed(
    tmp_path: Path,
) -> None:
    """tomllib's time grows with a dotted key's parts squared (100,000 parts: minutes):
    a pyproject.toml or a Gradle version catalog with such a line gives nothing, as one
    that does not parse, and the rest of the tree is linted; as the configuration k8slb
    would load, it is refused with its name."""
    key = "a." * 100_000 + "a = 1\n"
    (tmp_path / "pyproject.toml").write_text(key)
    (tmp_path / "gradle").mkdir()
    (tmp_path / "gradle" / "libs.versions.toml").write_text(key)
    (tmp_path / "app.py").write_text("import grpc\nserver = grpc.server(None)\n")
    arguments = ["check", "--no-cache", "--format", "json", str(tmp_path)]
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=15)
    # the pyproject.toml at the top is the configuration k8slb looks for: refused, by name
    assert done.returncode == 2, done.stderr
    assert "pyproject.toml: not read: a line holds more than 256 dots" in done.stderr
    (tmp_path / "pyproject.toml").rename(tmp_path / "gradle" / "pyproject.toml")
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=15)
    assert done.returncode in (0, 1), done.stderr


def test_a_configuration_of_arrays_nested_past_the_stack_is_refused_by_name(
    tmp_path: Path,
) -> None:
    """tomllib recurses once an array level: a pyproject.toml of 100,000 nested arrays is a
    configuration error naming the file (exit 2), not an internal error, and the same
    text elsewhere in the tree (a Gradle catalog) is read as one that does not parse."""
    nested = "[tool.k8slb]\nx = " + "[" * 100_000 + "]" * 100_000 + "\n"
    (tmp_path / "pyproject.toml").write_text(nested)
    (tmp_path / "gradle").mkdir()
    (tmp_path / "gradle" / "libs.versions.toml").write_text(nested)
    done = _k8slb("check", "--no-cache", ".", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "pyproject.toml: not read: its values nest too deep" in done.stderr
    (tmp_path / "pyproject.toml").unlink()
    done = _k8slb("check", "--no-cache", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_many_stops_of_a_grace_parameter_read_its_default_once(tmp_path: Path) -> None:
    """Thousands of `server.stop(grace)` in one function whose `grace=0` is their grace:
    the function's default is read once, not walked again for each stop (quadratic)."""
    code = (
        "import grpc\n\nserver = grpc.server(None)\n\n\ndef close(grace=0):\n"
        + "    server.stop(grace)\n" * 4000
    )
    (tmp_path / "app.py").write_text(code)
    script = (
        "import sys; from k8slb.languages.python.parse import parse; "
        "facts = parse('app.py', open(sys.argv[1], 'rb').read()); "
        "print(len(facts.stops), {s.grace for s in facts.stops})"
    )
    done = within_cpu([sys.executable, "-c", script, str(tmp_path / "app.py")], cpu_seconds=10)
    assert done.stdout.split() == ["4000", "{0}"], done.stderr


def test_stops_in_thousands_of_main_blocks_are_placed_by_bisection(tmp_path: Path) -> None:
    """30,000 `if __name__ == "__main__":` blocks, a server's stop in each: each stop's
    block is found by bisection, not by a scan of every block (quadratic)."""
    block = 'if __name__ == "__main__":\n    server.stop(None)\n'
    code = "import grpc\n\nserver = grpc.server(None)\nserver.start()\n" + block * 30_000
    (tmp_path / "app.py").write_text(code)
    arguments = ["check", "--isolated", "--no-cache", "--select", "KLB404", str(tmp_path)]
    done = within_cpu([sys.executable, "-m", "k8slb", *arguments], cpu_seconds=15)
    assert done.returncode == 1, done.stderr


def test_a_module_of_thousands_of_imports_and_method_calls_is_read_in_linear_time(
    tmp_path: Path,
) -> None:
    # each `x.f()` scanned every import for a registry client's (JavaScript's
    # _registration): 20,000 of each, 0.8 MB, took about 12 s of CPU; now under 1 s
    source = tmp_path / "index.js"
    lines = (f"import a{n} from './m{n}'\na{n}.f()\n" for n in range(20_000))
    source.write_text("process.on('SIGTERM', () => {})\n" + "".join(lines))
    code = (
        "import sys; from k8slb.languages.javascript.parse import parse; "
        "print(parse('index.js', open(sys.argv[1], 'rb').read()).problem)"
    )
    done = within_cpu([sys.executable, "-c", code, str(source)], cpu_seconds=5)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "None"
