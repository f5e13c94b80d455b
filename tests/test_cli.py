"""The command line as users meet it: exit codes, formats, selection, stdin, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import CODE_READ, READ, cli
from k8slb.languages import LANGUAGES
from k8slb.rules import ALL_RULES

from .helpers import FIXTURES

BAD = str(FIXTURES / "demo" / "bad")
GOOD = str(FIXTURES / "demo" / "good")
AFFINITY = """\
apiVersion: v1
kind: Service
metadata: {name: api}
spec:
  selector: {app: api}
  sessionAffinity: ClientIP
  ports: [{port: 80}]
"""


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_findings_at_or_above_fail_on_exit_1_else_0() -> None:
    assert invoke("check", BAD)[0] == 1
    assert invoke("check", GOOD)[0] == 0
    assert invoke("check", "--fail-on", "error", BAD)[0] == 1, "KLB111 is an error"
    code, out, _ = invoke("check", "--fail-on", "error", "--ignore", "KLB111", BAD)
    assert code == 0 and "KLB401" in out, "warnings are shown but do not fail"


def test_info_findings_do_not_fail_by_default(tmp_path: Path) -> None:
    (tmp_path / "svc.yaml").write_text(AFFINITY)
    assert invoke("check", str(tmp_path))[0] == 0
    assert invoke("check", "--fail-on", "info", str(tmp_path))[0] == 1


def test_text_output_is_path_line_col_rule_severity_message_then_a_summary() -> None:
    _, out, _ = invoke("check", BAD)
    lines = out.splitlines()
    assert lines[0].startswith(f"{BAD}/backend.yaml:22:17: KLB401 [*] [warning] container 'server'")
    assert lines[-2:] == [
        "Found 10 findings: 1 error, 8 warnings, 1 info (10 files, 8 objects).",
        "[*] 5 fixable with `k8slb fix` (4 hidden fixes can be enabled with --unsafe-fixes).",
    ]
    assert "\x1b[" not in out, "no colour when stdout is not a terminal"


def test_clean_run_says_so() -> None:
    assert invoke("check", GOOD)[1] == "All checks passed (10 files, 8 objects).\n"


def test_select_and_ignore_take_ids_prefixes_and_names() -> None:
    def rules(*args: str) -> set[str]:
        out = invoke("check", "--format", "json", *args, BAD)[1]
        return {f["rule"] for f in json.loads(out)["findings"]}

    assert rules() == {"KLB101", "KLB102", "KLB111", "KLB201", "KLB301", "KLB401", "KLB403"}
    assert rules("--select", "KLB4") == {"KLB401", "KLB403"}
    assert rules("--select", "grpc-clusterip,KLB301") == {"KLB101", "KLB301"}
    ignored = ("--ignore", "KLB2,KLB3,KLB4", "--ignore", "grpc-client-clusterip")
    assert rules(*ignored) == {"KLB101", "KLB111"}


def test_an_unknown_rule_is_a_usage_error() -> None:
    code, _, err = invoke("check", "--select", "KLB999", BAD)
    assert code == 2 and "unknown rule or prefix 'KLB999'" in err


def test_a_missing_path_is_exit_2_after_linting_the_rest() -> None:
    code, out, err = invoke("check", BAD, "does/not/exist.yaml")
    assert code == 2
    assert "KLB401" in out
    assert "k8slb: error: does/not/exist.yaml: no such file or directory" in err


def test_stdin_is_read_with_dash_and_named_by_stdin_filename() -> None:
    code, out, _ = invoke("check", "-", "--fail-on", "info", stdin=AFFINITY)
    assert code == 1 and out.startswith("-:6:20: KLB104 [info]")
    out = invoke("check", "-", "--stdin-filename", "rendered.yaml", stdin=AFFINITY)[1]
    assert out.startswith("rendered.yaml:6:20: KLB104")


def test_bad_kubernetes_version_is_a_usage_error() -> None:
    code, _, err = invoke("check", "--kubernetes-version", "latest", GOOD)
    assert code == 2 and "not a version like 1.30" in err


def test_mesh_option_silences_grpc_clusterip() -> None:
    out = invoke("check", "--format", "json", "--mesh", "istio", BAD)[1]
    assert "KLB101" not in {f["rule"] for f in json.loads(out)["findings"]}


def test_rules_lists_every_rule() -> None:
    code, out, _ = invoke("rules")
    assert code == 0
    assert out.splitlines()[0].split() == ["ID", "NAME", "SEVERITY", "FIX", "SUMMARY"]
    for rule in ALL_RULES:
        assert f"{rule.id}  {rule.name}" in out


@pytest.mark.parametrize("name", ["KLB101", "klb101", "grpc-clusterip"])
def test_explain_by_id_or_name(name: str) -> None:
    code, out, _ = invoke("explain", name)
    assert code == 0 and out.startswith("# KLB101 grpc-clusterip\n")
    assert "## Why it matters" in out and "```yaml" in out


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.id)
def test_explain_says_why_it_matters_and_the_fix_before_what_it_detects(rule: type) -> None:
    """The reasoning comes first: KLB101's detection alone runs some 60 lines."""
    code, out, _ = invoke("explain", rule.id)
    headings = [line[3:] for line in out.splitlines() if line.startswith("## ")]
    assert code == 0 and headings[:3] == ["Why it matters", "Fix", "What it does"], headings
    assert sorted(headings) == sorted([*rule.sections(), *(["Examples"] if rule.examples else [])])


def test_explain_unknown_rule_is_exit_2() -> None:
    code, _, err = invoke("explain", "KLB999")
    assert code == 2 and "no rule 'KLB999'" in err


def test_a_command_that_cannot_do_what_it_was_asked_says_so_and_exits_2(tmp_path: Path) -> None:
    """Each command's error is said one way (`k8slb: error: ...` on stderr, nothing on
    stdout) with the exit code the README states for it: a configuration that cannot be
    read, a baseline that cannot be written, a rule that does not exist."""
    (tmp_path / "bad.toml").write_text("select = [\n")
    cases = [
        ("check", str(tmp_path), "--config", str(tmp_path / "bad.toml")),
        (
            "check",
            str(FIXTURES / "demo"),
            "--write-baseline",
            "--baseline",
            str(tmp_path / "no" / "b"),
        ),
        ("explain", "KLB999"),
    ]
    for args in cases:
        code, out, err = invoke(*args)
        assert (code, out) == (2, ""), args
        assert err.startswith("k8slb: error: ") and err.endswith("\n"), (args, err)


def test_runs_as_a_real_process_with_python_m() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", "check", "--format", "json", BAD],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["summary"]["findings"] == 10


def test_colour_can_be_forced_and_is_otherwise_off_when_piped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" in invoke("check", BAD)[1]
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in invoke("check", BAD)[1]


def test_a_run_with_errors_never_says_all_checks_passed(tmp_path: Path) -> None:
    (tmp_path / "broken.yaml").symlink_to(tmp_path / "nowhere.yaml")
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--no-cache", str(tmp_path / "broken.yaml")]
    )
    assert done.exit_code == 2
    assert "All checks passed" not in done.stdout
    assert done.stdout.splitlines()[-1] == (
        "No findings in what was read (0 files, 0 objects), and 1 error (below)."
    )


def test_exit_zero_keeps_findings_but_not_errors() -> None:
    code, out, _ = invoke("check", "--exit-zero", BAD)
    assert code == 0 and "KLB101" in out
    assert invoke("check", "--exit-zero", "/nonexistent/path.yaml")[0] == 2


def test_output_file_gets_the_report_and_the_terminal_a_summary(tmp_path: Path) -> None:
    report = tmp_path / "k8slb.sarif"
    code, out, _ = invoke("check", "--format", "sarif", "--output-file", str(report), BAD)
    assert code == 1, "the exit code is the run's, with no `|| true` needed to keep the file"
    assert json.loads(report.read_text())["version"] == "2.1.0"
    assert out.splitlines()[0] == (
        "Found 10 findings: 1 error, 8 warnings, 1 info (10 files, 8 objects)."
    )
    assert out.splitlines()[-1] == f"Report written to {report}."
    assert "\x1b[" not in report.read_text()


def test_extend_select_adds_to_the_selection() -> None:
    def rules(*args: str) -> set[str]:
        return {
            f["rule"]
            for f in json.loads(invoke("check", "--format", "json", *args, BAD)[1])["findings"]
        }

    assert rules("--select", "KLB101", "--extend-select", "KLB401") == {"KLB101", "KLB401"}
    assert rules("--extend-select", "KLB401") == rules(), "nothing selected: every rule already"


@pytest.mark.parametrize(("choice", "coloured"), [("always", True), ("never", False)])
def test_color_always_and_never(choice: str, coloured: bool) -> None:
    out = (
        CliRunner().invoke(cli, ["check", "--color", choice, BAD], env={"FORCE_COLOR": "1"}).output
    )
    assert ("\x1b[" in out) is coloured


def test_unknown_codes_and_names_get_a_suggestion() -> None:
    done = CliRunner().invoke(cli, ["check", "--select", "no-prestp", BAD])
    assert done.exit_code == 2 and "did you mean no-prestop?" in done.output
    assert "did you mean KLB401?" in CliRunner().invoke(cli, ["explain", "KLB410"]).output


def test_rules_as_json() -> None:
    rows = json.loads(invoke("rules", "--format", "json")[1])
    assert [r["id"] for r in rows] == [r.id for r in ALL_RULES]
    assert rows[0] == {
        "id": "KLB001",
        "name": "invalid-yaml",
        "severity": "error",
        "fix": {"available": False, "safe": False},
        "summary": ALL_RULES[0].summary(),
    }


def test_exit_non_zero_on_fix(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(BAD, tmp_path / "bad")
    assert invoke("fix", "--select", "KLB401", "--exit-non-zero-on-fix", str(tmp_path))[0] == 1
    assert invoke("fix", "--select", "KLB401", "--exit-non-zero-on-fix", str(tmp_path))[0] == 0


def test_verbose_names_the_configuration_and_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("K8SLB_DEBUG", "")  # -v sets it for the process: restored after
    (tmp_path / "a.yaml").write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n")
    done = CliRunner().invoke(cli, ["check", "-v", "--isolated", str(tmp_path)])
    assert "k8slb: configuration: none found" not in done.stderr, "--isolated reads none"
    monkeypatch.setenv("K8SLB_DEBUG", "")
    done = CliRunner().invoke(cli, ["check", "-v", str(tmp_path)])
    assert "k8slb: configuration:" in done.stderr and "k8slb: cache:" in done.stderr


@pytest.mark.parametrize(
    ("arguments", "code"),
    [
        (["check", "--format", "json", "--no-cache", str(FIXTURES / "demo" / "bad")], 1),
        (["check", "--format", "json", "--no-cache", str(FIXTURES / "demo" / "good")], 0),
        (["check", "--no-such-option"], 2),
        (["--version"], 0),
    ],
)
def test_the_process_exits_with_its_code_after_writing_all_of_its_output(
    arguments: list[str], code: int
) -> None:
    """The command line leaves without the interpreter's teardown: the report must still
    be whole in a pipe, and the exit code the one the run chose."""
    done = subprocess.run(
        [sys.executable, "-m", "k8slb", *arguments], capture_output=True, text=True, check=False
    )
    assert done.returncode == code, done.stderr
    if "json" in arguments:
        report = json.loads(done.stdout)
        assert bool(report["findings"]) == (code == 1)
    elif code == 2:
        assert "No such option" in done.stderr
    else:
        assert done.stdout.startswith("k8slb, version")


def test_the_command_line_alone_loads_no_engine() -> None:
    """`k8slb --version` and `--help` start at the cost of click: the engine, the rules
    and the parsers are imported by the commands that run them."""
    code = (
        "import sys; from k8slb.interface import cli\n"
        "heavy = [m for m in ('k8slb.run.engine', 'k8slb.rules', 'ruamel.yaml', 'libcst')"
        " if m in sys.modules]\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_check_that_composes_no_yaml_loads_no_yaml_parser(tmp_path: Path) -> None:
    """ruamel.yaml is imported where a YAML text is composed: a check of Python files
    (an editor's, a hook's on a Python change) does without it."""
    module = tmp_path / "client.py"
    module.write_text("import grpc\n\nchannel = grpc.insecure_channel('backend:50051')\n")
    code = (
        "import sys\n"
        "from k8slb.interface.cli import cli\n"
        f"try: cli(['check', '--no-cache', {str(module)!r}], prog_name='k8slb')\n"
        "except SystemExit: pass\n"
        "print('ruamel.yaml' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "KLB103" in done.stdout, "the module was checked"
    assert done.stderr.strip().splitlines()[-1] == "False"


PROJECT_SERVER = """\
from concurrent import futures

import grpc


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(4))
    server.start()
    server.wait_for_termination()
"""


def test_a_file_named_alone_is_judged_with_the_rest_of_its_project(tmp_path: Path) -> None:
    """The SIGTERM handler is in another module of the project: naming server.py alone
    (as an editor or a hook does) must not claim there is none."""
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "server.py").write_text(PROJECT_SERVER)
    (tmp_path / "svc" / "main.py").write_text(
        "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: None)\n"
    )
    server = str(tmp_path / "svc" / "server.py")
    assert "KLB403" in invoke("check", "--select", "KLB403", server)[1], "no project: alone"
    (tmp_path / ".git").mkdir()
    code, out, _ = invoke("check", "--select", "KLB403", server)
    assert code == 0 and out.startswith("All checks passed (1 file,"), "main.py is context"
    code, out, _ = invoke("check", "--select", "KLB403", "--no-project-context", server)
    assert code == 1 and "no SIGTERM handler in its project" in out


def test_a_folder_with_nothing_k8slb_reads_is_a_warning_not_a_quiet_pass(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing to lint\n")
    done = CliRunner().invoke(cli, ["check", "--isolated", str(tmp_path)])
    assert done.exit_code == 0
    assert f"k8slb: warning: no file k8slb reads under {tmp_path} ({READ})" in done.stderr


def test_check_says_it_reads_the_code_of_every_language_in_the_table() -> None:
    """`check --help` and the warning on a folder with nothing to read name the languages
    of languages/__init__.py's table, all of them and in its order, however many it holds."""
    titles = [language.title or language.name for language in LANGUAGES.values()]
    assert ", ".join(titles) == CODE_READ
    shown = " ".join(CliRunner().invoke(cli, ["check", "--help"]).output.split())
    assert f"under PATHS ({READ};" in shown


def test_a_report_that_cannot_be_written_is_not_said_to_be_written(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    target = tmp_path / "missing" / "r.txt"
    done = CliRunner().invoke(cli, ["check", "--isolated", "-o", str(target), str(tmp_path)])
    assert done.exit_code == 2
    assert "Report written" not in done.output and "cannot write the report" in done.stderr


def test_the_version_says_which_yaml_builder_was_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pip shows a build's output only when it fails: a missing C compiler is said here."""
    import importlib.util

    from k8slb.interface import cli as cli_module

    assert "YAML read in" in CliRunner().invoke(cli, ["--version"]).output
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name.endswith("_yamltree") else real(name, *a),
    )
    assert "no C compiler at install" in cli_module._yaml_builder()
