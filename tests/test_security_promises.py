"""The README's Security section, sentence by sentence: each is one bullet, and each is
held by the tests named for it here. A sentence added without its tests, a sentence whose
words change, or a test renamed or removed fails this module; so do the promises below
that no other module holds (the network, the templates' reach, the server's peer)."""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.interface.cli import cli

from .helpers import FIXTURES, ROOT

# Each sentence of the section (its words as written, whitespace aside), and the tests
# (`file::function`) that fail when it stops being true.
PROMISES: dict[str, tuple[str, ...]] = {
    "Manifests, Python, Go, JavaScript, Java and Kotlin files are parsed (all but Python by "
    "tree-sitter), never imported, built or executed.": (
        "test_security_promises.py::test_code_in_the_tree_is_read_never_run",
    ),
    "The GitHub Action runs every Python it starts isolated (`python -I`), so no module "
    "committed to the checked-out repository is imported.": (
        "test_github_action.py::test_modules_the_repository_plants_never_run",
        "test_github_action.py::test_every_interpreter_the_install_runs_is_isolated",
    ),
    "Helm charts are rendered by Helm's own engine in a child process with no cluster, where "
    "a template can read only its chart's files.": (
        "test_security_promises.py::test_a_template_reads_no_file_outside_its_chart_and_no_cluster",
    ),
    "A chart Helm fails on is rendered again (without a failing template, with a stand-in "
    "value) only while the bytes of templates handed to Helm stay within 1.5 MiB a try and "
    "12 MiB a chart: counted in work, not seconds, so a busy machine gives the same answer.": (
        "test_helm_left_out.py::test_a_chart_rendered_again_without_its_failing_templates_is_the_same_on_a_busy_machine",
        "test_helm_left_out.py::test_past_its_budget_of_work_the_chart_is_not_rendered_and_says_after_how_many_renders",
        "test_helm_left_out.py::test_a_further_try_of_a_chart_whose_work_is_spent_is_not_rendered",
    ),
    "A chart may use 30 s of CPU (`K8SLB_HELM_SECONDS`), its renderer's data may grow by "
    "1 GiB (`K8SLB_HELM_MEMORY`, MiB; Linux), its manifests may be 32 MiB, and all the charts "
    "of a run share 120 s of CPU (`K8SLB_HELM_BUDGET`, seconds); a chart past a limit is a "
    "KLB003 finding that says which.": (
        "test_hostile_input.py::test_a_chart_that_renders_for_ever_is_stopped_and_the_rest_is_linted",
        "test_helm.py::test_a_chart_that_fills_the_memory_is_stopped_at_the_limit_and_k8slb_stays_small",
        "test_helm.py::test_the_charts_of_a_run_share_one_rendering_budget_and_each_past_it_is_named",
        "test_render_process.py::test_k8slb_helm_seconds_gives_a_chart_more_cpu",
    ),
    "These time limits count the CPU time of the renderer (every thread, and any process it "
    "runs), not the clock's, so a busy machine gives the same answer; the wall clock only "
    "guards against a renderer stuck without using CPU, at four times each limit (off Linux, "
    "where no process's CPU time is read, the limits are the clock's).": (
        "test_render_process.py::test_a_starved_job_gets_the_same_answer_as_on_an_idle_machine",
        "test_render_process.py::test_every_thread_of_the_job_is_counted",
        "test_render_process.py::test_a_process_the_job_runs_is_counted_and_stopped_with_it",
        "test_render_process.py::test_the_runs_budget_counts_cpu_not_the_clock",
        "test_render_process.py::test_a_job_that_sleeps_is_stopped_by_the_wall_guard_not_before_its_cpu_limit_would",
        "test_render_process.py::test_the_runs_budget_has_a_wall_guard_too",
        "test_render_process.py::test_where_no_proc_tells_the_cpu_time_the_limits_are_the_clocks",
    ),
    "These limits come from the environment, never from the repository.": (
        "test_security_promises.py::test_the_configuration_has_no_key_for_limits_programs_or_network",
    ),
    "A values schema that refers to a URL or a file is not handed to Helm, whose validator "
    "would fetch it; it is a KLB003 finding at its `$ref`.": (
        "test_helm.py::test_a_values_schema_that_refers_outside_itself_is_named_at_its_reference",
        "test_helm.py::test_a_packaged_subcharts_schema_that_refers_outside_is_named_inside_its_archive",
    ),
    "A kustomization is built only with `--kustomize` on the command line: a `kustomize` key "
    "in the repository's configuration stops the run.": (
        "test_kustomize.py::test_without_the_option_the_resource_files_are_linted_as_written",
        "test_kustomize.py::test_a_repositorys_configuration_cannot_turn_on_builds",
    ),
    "Even then, a kustomization that names a remote entry (a URL in `resources:`, `bases:` "
    "or `components:`, its own or a base's) is not built, and each such entry is KLB006.": (
        "test_kustomize.py::test_a_kustomization_naming_a_remote_resource_is_not_built",
    ),
    "Nor is one that inflates a Helm chart (`helmCharts:`, its own or a base's) not vendored "
    "in its chart home, which `--enable-helm` would pull from its repository: KLB006, once, "
    "at that list.": (
        "test_kustomize_left_out.py::"
        "test_with_builds_a_kustomization_of_remote_charts_is_not_built_and_says_why",
    ),
    "Other fields kustomize may load from a URL are not vetted: build only trusted trees with "
    "`--kustomize`.": (
        # a limit said, not a guarantee: what it leaves open is what --kustomize may build
        "test_kustomize.py::test_a_kustomization_naming_a_remote_resource_is_not_built",
    ),
    "k8slb itself opens no network connection.": (
        "test_security_promises.py::test_a_run_opens_no_network_connection",
    ),
    "Symbolic links are followed only when their target stays in the scanned folder; "
    "anything else is reported (KLB006) and not opened, so no content from outside is "
    "quoted in a finding.": (
        "test_sources.py::test_links_are_read_only_when_their_target_stays_in_the_scanned_folder",
    ),
    "A path the configuration names (`helm.values`, `helm.charts`, `links`, `baseline`) must "
    "lead inside its repository, links followed, and so must the default baseline "
    "`.k8slb-baseline.json`; anything else stops the run (exit 2, with the file, line and "
    "key).": (
        "test_config.py::test_a_path_the_configuration_names_must_stay_in_its_repository",
        "test_config.py::test_outside_any_repository_the_configuration_names_only_files_below_it",
        "test_repository_bounds.py::test_a_committed_baseline_that_links_outside_the_repository_is_refused",
    ),
    "Paths you give on the command line, such as `--helm-values` or `--baseline`, are your "
    "choice and may lead anywhere.": (
        "test_config.py::test_a_path_given_on_the_command_line_may_lie_outside_the_repository",
    ),
    "No search for a file's chart, project, configuration or formatter settings goes above "
    "the repository's top, so a stray `Chart.yaml` or configuration in a shared folder above "
    "is never read.": (
        "test_repository_bounds.py::test_a_stray_chart_above_does_not_make_a_named_file_its_template",
        "test_repository_bounds.py::test_a_stray_configuration_above_a_repository_is_not_read",
        "test_repository_bounds.py::test_outside_any_repository_nothing_above_the_path_is_read_but_the_current_folder",
        "test_repository_bounds.py::test_a_stray_formatter_setting_above_does_not_set_the_fixes_line_length",
    ),
    "Which files git tracks (a `.gitignore` leaves out untracked files only, as in git) is "
    "read from the work tree's index file as bytes, at most 256 MiB and 2,000,000 entries; "
    "git itself is never run, since its configuration can name commands (`core.fsmonitor`).": (
        "test_git_index.py::test_git_is_never_run_so_its_configuration_runs_nothing",
        "test_git_index.py::test_an_index_that_is_no_file_or_does_not_parse_says_nothing_is_tracked",
    ),
    "Only regular files are read (a FIFO cannot block a run), and no read takes more than "
    "256 MiB.": (
        "test_sources.py::test_a_fifo_is_never_opened",
        "test_sources.py::test_a_named_endless_file_is_refused_not_read_into_memory",
        "test_sources.py::test_a_file_is_read_whole_up_to_the_limit_and_refused_past_it",
    ),
    "Nesting is bounded before text reaches a native parser (YAML: 200 levels; Python: the "
    "tokenizer's 200 brackets), and aliases are bounded (10^6 expanded nodes).": (
        "test_hostile_input.py::test_yaml_nested_past_the_native_stack_is_klb001_not_a_crash",
        "test_hostile_input.py::test_unclosed_flow_mappings_are_klb001_before_the_scanner_squares_them",
        "test_hostile_input.py::test_python_nested_past_the_tokenizer_is_klb004_quickly",
        "test_bad_input.py::test_an_alias_bomb_neither_hangs_nor_eats_memory",
    ),
    "A Go file whose functions and blocks nest about 100 deep is left unread (KLB004 at "
    "info), since its reader asks tree-sitter for nodes' parents, which costs the depth "
    "each time.": (
        "test_hostile_input.py::test_go_functions_nested_past_a_hundred_are_klb004_info_quickly",
    ),
    "A Go, JavaScript, TypeScript, Java or Kotlin file whose code nests more than 1,000 "
    "levels is left unread (KLB004 at info; real code nests a few hundred at most), since "
    "tree-sitter's query engine slows down with depth, and a syntax error that deep is the "
    "file's, its parents never asked for.": (
        "test_hostile_input.py::test_code_nested_past_a_thousand_levels_is_klb004_info_quickly",
        "test_hostile_input.py::test_code_nested_as_deep_as_real_code_is_read",
        "test_hostile_input.py::test_a_syntax_error_nested_past_a_thousand_levels_is_the_files",
    ),
    "tree-sitter may take 10 s of CPU to parse one file (`K8SLB_PARSE_SECONDS`); its "
    "recovery from errors costs some text 20 s a megabyte, and a file past the limit is "
    "left unread (KLB004 at info).": (
        "test_hostile_input.py::test_a_file_tree_sitter_parses_past_its_limit_is_klb004_info",
        "test_hostile_input.py::test_a_parse_stopped_by_its_limit_leaves_the_parser_to_the_next_file",
    ),
    "The YAML builder in C keeps the same limits and builds exactly what the Python one "
    "builds: a test compares the two on every fixture, the corpus, hostile text and "
    "generated documents.": (
        "test_yaml_native.py::test_every_fixture_and_corpus_file_builds_alike",
        "test_yaml_native.py::test_edge_cases_and_hostile_text_build_alike",
        "test_yaml_native.py::test_generated_documents_build_alike",
    ),
    "Where ruamel's C composer, which the fixer reads with, has no limit (nesting past 200 "
    "levels, an alias inside its own anchor), the fix is refused.": (
        "test_yaml_native.py::test_the_fixers_nodes_refuse_what_the_check_refuses",
    ),
    "Every regular expression k8slb applies to what a repository holds (its files, their "
    "names, the values in them; `.gitignore` and `exclude` too) runs on RE2, in time linear "
    "in its input, or is a plain scan, and a test finds any other use of Python's "
    "backtracking `re`.": (
        "test_linear_patterns.py::test_no_backtracking_regular_expression_reads_what_a_repository_holds",
        "test_linear_patterns.py::test_an_input_that_stalled_a_reader_is_read_quickly",
        "test_hostile_input.py::test_a_backtracking_glob_does_not_stall_the_run",
    ),
    "What the code readers compute has a budget (a value is followed 8 steps deep, a string "
    "up to 4096 characters, 20,000 values a file), past which a value is unknown, and they "
    "read in linear time, so strings doubled again and again, objects that fan out or "
    "thousands of clients in one function cannot stall a run or fill its memory.": (
        "test_reader_budgets.py::test_the_issues_hostile_code_is_read_within_the_budget",
        "test_reader_budgets.py::test_a_string_past_the_budget_is_unknown_never_cut",
        "test_reader_budgets.py::test_the_readme_states_the_budgets_the_readers_keep",
    ),
    "A property test feeds every reader generated hostile code of each of these shapes in a "
    "child process limited to 300 MB and 5 s of CPU, and it must finish with no internal "
    "error.": (
        "test_reader_budgets.py::test_every_reader_reads_generated_hostile_code_within_the_budget",
    ),
    "`check` writes nothing in the tree.": (
        "test_cache_trust.py::test_a_committed_cache_link_deletes_nothing_and_nothing_is_written_in_the_tree",
        "test_security_promises.py::test_check_writes_nothing_in_the_tree",
    ),
    "`fix` writes the files it fixes atomically, never through a link, and only after "
    "reading the result back (see Fixes).": (
        "test_fix.py::test_writes_are_atomic_and_keep_the_mode",
        "test_fix.py::test_a_symlink_is_reported_not_written_through",
        "test_fix_trust.py::test_the_read_back_compares_every_document_and_changes_none_it_reads",
        "test_fix_trust.py::test_when_positions_are_wrong_the_guard_refuses_instead_of_writing",
    ),
    "A read-only file (by its mode: root is refused too) and a file with other hard links are "
    "reported and left alone.": (
        "test_fix.py::test_a_read_only_file_is_reported_not_written",
        "test_fix.py::test_a_read_only_file_is_refused_even_for_root",
        "test_fix.py::test_a_file_with_other_hard_links_is_reported_not_written",
    ),
    "`fix` removes no file it did not make: a file named like its temporaries is kept unless "
    "it is proven one.": (
        "test_fix.py::test_a_file_named_like_a_temporary_is_removed_only_when_proven_k8slbs",
    ),
    "It lives in the user's cache folder (`$K8SLB_CACHE_DIR`, else `$XDG_CACHE_HOME/k8slb`, "
    "else `~/.cache/k8slb`), one folder per project, never in the scanned tree (a "
    "`.k8slb_cache` committed to a repository is ignored).": (
        "test_cache_trust.py::test_each_project_has_its_own_folder",
        "test_cache_trust.py::test_a_committed_cache_link_deletes_nothing_and_nothing_is_written_in_the_tree",
    ),
    "Every folder is created with mode 0700 and used only if it is a real folder owned by the "
    "running user; only folders carrying k8slb's `CACHEDIR.TAG` are ever removed, never "
    "through a link.": (
        "test_cache_trust.py::test_a_cache_folder_that_is_a_link_or_not_ours_is_not_used",
        "test_cache_trust.py::test_only_folders_with_k8slbs_marker_are_removed_and_links_are_not_followed",
    ),
    "Each file carries a checksum and is loaded by an unpickler that builds only k8slb's own "
    "data classes and calls no function: a damaged or forged file is ignored, never run.": (
        "test_cache_trust.py::test_one_changed_byte_is_detected",
        "test_cache_trust.py::test_a_forged_cache_file_runs_no_code",
        "test_cache_trust.py::test_a_forged_object_body_inside_a_valid_parse_runs_no_code",
    ),
    "Its socket lives in the cache's base (`server/`, a real folder of yours, mode 0700), "
    "and it answers only processes of your own user.": (
        "test_server.py::test_a_server_folder_that_is_a_link_is_never_used",
        "test_security_promises.py::test_the_server_answers_only_its_own_user",
    ),
    "It serves only a `k8slb` of the same code and interpreter start-up, and it is started "
    "only by you (`k8slb server start`, or `K8SLB_SERVER=auto`), never by a repository.": (
        "test_server.py::test_no_server_is_asked_when_told_not_to_or_by_another_interpreter_state",
        "test_server.py::test_a_server_stops_once_k8slbs_code_changes_on_disk",
        "test_server.py::test_only_the_command_line_starts_a_server",
    ),
    "Control characters from the files (newlines, escape sequences, bidirectional "
    "overrides) are shown as escapes (`\\n`, `\\x1b`, `\\u202e`) in the text, GitHub and "
    "JUnit formats; JSON and SARIF escape them.": (
        "test_output_injection.py::test_control_characters_are_shown_as_escapes",
        "test_output_injection.py::test_json_formats_keep_the_exact_value",
    ),
    "In Markdown (a job summary, a comment) an `@name` from the files mentions no one.": (
        "test_formats.py::test_markdown_mentions_no_one_a_repository_names",
    ),
}


def _section() -> str:
    text = (ROOT / "README.md").read_text()
    start = text.index("\n## Security\n")
    return text[start : text.index("\n## ", start + 1)]


def _sentences() -> list[str]:
    """The section's bullets, each as one line; the bold headings only group them."""
    bullets: list[str] = []
    for line in _section().splitlines():
        if line.startswith("- "):
            bullets.append(line[2:])
        elif line.startswith("  ") and bullets:
            bullets[-1] += " " + line.strip()
    return [" ".join(bullet.split()) for bullet in bullets]


def _tests_in(module: str) -> set[str]:
    tree = ast.parse((ROOT / "tests" / module).read_text())
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_sentence_of_the_security_section_is_held_by_tests() -> None:
    said = _sentences()
    assert len(said) == len(set(said)), "a sentence said twice"
    unheld = [sentence for sentence in said if sentence not in PROMISES]
    assert not unheld, f"sentences with no tests named for them: {unheld}"
    stale = [sentence for sentence in PROMISES if sentence not in said]
    assert not stale, f"promises the README no longer makes: {stale}"


def test_each_bullet_is_one_sentence() -> None:
    """One sentence, one set of tests: a second sentence in a bullet would be unheld."""
    for sentence in _sentences():
        words = sentence.split(" ")
        ends = [w for w in words[:-1] if w.endswith(".") and not w.endswith("..")]
        assert not ends, f"more than one sentence: {sentence}"


def test_the_tests_named_exist() -> None:
    for tests in PROMISES.values():
        for test in tests:
            module, name = test.split("::")
            assert name in _tests_in(module), f"no test {test}"


# The promises no other module holds.


def test_code_in_the_tree_is_read_never_run(tmp_path: Path) -> None:
    """Modules that run on import, a setup.py, a package.json script, a Go init, a Java
    static block and a Kotlin `init`: read, and none of them runs."""
    marker = tmp_path / "ran"
    run = f"open({str(marker)!r}, 'w').write('ran')"
    files = {
        "app/main.py": f"import grpc\n{run}\nchannel = grpc.insecure_channel('api:50051')\n",
        "app/setup.py": f"{run}\n",
        "app/conftest.py": f"{run}\n",
        "web/package.json": json.dumps(
            {"name": "web", "scripts": {"preinstall": f"touch {marker}", "start": "node a.js"}}
        ),
        "web/a.js": f"require('fs').writeFileSync({str(marker)!r}, 'ran')\n",
        "go/main.go": f'package main\nimport "os"\nfunc init() {{ os.Create("{marker}") }}\n',
        "java/A.java": f'class A {{ static {{ new java.io.File("{marker}"); }} }}\n',
        "kotlin/A.kt": "import io.grpc.*\nobject A {\n    init {\n"
        f'        java.io.File("{marker}").createNewFile()\n    }}\n}}\n',
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    done = CliRunner().invoke(cli, ["check", "--no-cache", "--isolated", str(tmp_path)])
    assert done.exit_code in (0, 1), done.output
    assert not marker.exists()


def test_a_template_reads_no_file_outside_its_chart_and_no_cluster(tmp_path: Path) -> None:
    """`.Files` holds the chart's own files only, and `lookup` finds nothing (no cluster):
    what `fail` prints is what the template could read."""
    (tmp_path / "secret.txt").write_text("s3cret\n")
    chart = tmp_path / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "x.yaml").write_text(
        '{{ fail (printf "files:[%s] root:[%s] lookup:[%v]" (.Files.Get "../secret.txt") '
        '(.Files.Get "/etc/hostname") (lookup "v1" "Namespace" "" "")) }}\n'
    )
    done = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", str(chart)])
    (finding,) = json.loads(done.stdout)["findings"]
    assert finding["rule"] == "KLB003"
    assert "files:[] root:[] lookup:[map[]]" in finding["message"], finding["message"]
    assert "s3cret" not in done.stdout


def test_the_configuration_has_no_key_for_limits_programs_or_network() -> None:
    """What a repository's configuration may set is the findings' selection and the fixes'
    values: a new key that set a limit, ran a program or reached the network would be a
    repository's to turn on, so adding one fails here first."""
    from k8slb.run.config import _schema

    assert set(_schema()["properties"]) == {
        "select",
        "ignore",
        "fail-on",
        "exclude",
        "baseline",
        "kubernetes-version",
        "mesh",
        "per-file-ignores",
        "fix",
        "exemptions",
        "helm",
        "links",
    }
    assert set(_schema()["properties"]["helm"]["properties"]) <= {
        "values",
        "charts",
        "release",
        "namespace",
    }


_NO_NETWORK = """
import os, sys
def audit(event, args):
    if event in ("socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                 "socket.sendto", "urllib.Request", "http.client.connect"):
        os.write(2, f"network: {event} {args!r}".encode())
        os._exit(97)
sys.addaudithook(audit)
from k8slb.__main__ import main
sys.argv = ["k8slb", *sys.argv[1:]]
main()
"""


def test_a_run_opens_no_network_connection(tmp_path: Path) -> None:
    """Every socket opened in k8slb's process (and in the render processes it forks) is
    stopped by an audit hook: a run over manifests, code and a chart opens none."""
    command = [sys.executable, "-c", _NO_NETWORK, "check", "--no-cache", "--format", "json"]
    paths = [str(FIXTURES / "demo"), str(FIXTURES / "helm")]
    env = {**os.environ, "K8SLB_SERVER": "off"}
    done = subprocess.run(
        [*command, *paths], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode in (0, 1), done.stderr
    assert json.loads(done.stdout)["findings"], "the run read what it was given"


def test_check_writes_nothing_in_the_tree(tmp_path: Path) -> None:
    import shutil

    tree = tmp_path / "tree"
    shutil.copytree(FIXTURES / "demo", tree)
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    for output in ("text", "json", "sarif", "markdown"):
        CliRunner().invoke(cli, ["check", "--format", output, str(tree)])
    after = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    assert after == before


def test_the_server_answers_only_its_own_user(monkeypatch: pytest.MonkeyPatch) -> None:
    """The peer's user, as the kernel gives it, is compared with the server's own."""
    from k8slb.interface import server

    if getattr(socket, "SO_PEERCRED", None) is None:
        pytest.skip("the kernel does not tell a socket's peer (the folder's mode keeps others out)")
    ours, theirs = socket.socketpair(socket.AF_UNIX)
    with ours, theirs:
        assert server._same_user(ours)
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 1)
        assert not server._same_user(ours)
