"""KLB406 sigterm-never-reaches-server: what runs as PID 1 keeps SIGTERM from the server."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.findings import Finding, Severity
from k8slb.interface.cli import cli
from k8slb.reading.sources import discover
from k8slb.rulekit.examples import web_deployment
from k8slb.rules.sigterm_never_reaches_server import pid1
from k8slb.run.engine import run
from k8slb.run.selection import select_rules
from k8slb.run.settings import Settings

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"


def built(dockerfile: str, **code: str) -> dict[str, str]:
    """web_deployment()'s container, its image built here from `dockerfile`, with `code`."""
    return {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": "FROM base:1\nWORKDIR /app\nCOPY . /app\n" + dockerfile,
        **{name.replace("_", "."): text for name, text in code.items()},
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def fix(tmp_path: Path) -> None:
    CliRunner().invoke(cli, ["fix", "--isolated", "--select", "KLB406", str(tmp_path)])


# A Python server that stops on SIGTERM: once it is PID 1, the signal reaches it.
APP = "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"


def test_a_shell_form_cmd_is_reported_at_its_line_and_fixed_to_the_exec_form(
    tmp_path: Path,
) -> None:
    (finding,) = klb406(tmp_path, built("CMD python app.py --port 8080\n", app_py=APP))
    assert finding.path.endswith("Dockerfile") and (finding.line, finding.column) == (4, 1)
    assert finding.severity is Severity.INFO and finding.fix.safe
    assert "shell-form CMD makes /bin/sh PID 1" in finding.text
    assert "dash (Debian's and Ubuntu's /bin/sh) does not" in finding.text
    assert finding.related[0].path.endswith("manifest.yaml")
    fix(tmp_path)
    text = (tmp_path / "Dockerfile").read_text()
    assert text.endswith('CMD ["python", "app.py", "--port", "8080"]\n')
    assert klb406(tmp_path, {}) == []


def test_a_shell_form_line_that_needs_the_shell_gets_exec_in_front(tmp_path: Path) -> None:
    files = built("CMD python app.py --port $PORT\n", app_py=APP)
    (finding,) = klb406(tmp_path, files)
    assert "write CMD exec python app.py --port $PORT" in finding.text
    fix(tmp_path)
    assert (tmp_path / "Dockerfile").read_text().endswith("CMD exec python app.py --port $PORT\n")
    assert klb406(tmp_path, {}) == []


def test_a_shell_form_entrypoint_is_not_rewritten_when_a_cmd_would_become_its_arguments(
    tmp_path: Path,
) -> None:
    files = built("ENTRYPOINT python app.py\nCMD --verbose\n", app_py=APP)
    (finding,) = klb406(tmp_path, files)
    assert (finding.line, finding.edits) == (4, ())


def test_sh_c_with_one_command_gets_exec_in_front_in_the_manifest(tmp_path: Path) -> None:
    manifest = web_deployment("command: [sh, -c, 'python /app/app.py']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.path.endswith("manifest.yaml") and finding.container == "web"
    assert finding.fix.safe and "sh -c is PID 1" in finding.text
    fix(tmp_path)
    fixed = (tmp_path / "manifest.yaml").read_text()
    assert "command: [sh, -c, 'exec python /app/app.py']" in fixed
    assert klb406(tmp_path, {}) == []


def test_the_script_in_args_after_a_shell_command_gets_the_exec(tmp_path: Path) -> None:
    manifest = web_deployment("command: [/bin/sh, -c]\nargs: ['python /app/app.py']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.edits[0].target[-2:] == ("args", 0)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "script",
    [
        "python app.py | tee /tmp/log",
        "python app.py > /tmp/log 2>&1",
        "python app.py & sleep infinity",
        "python worker.py & python app.py",
        "while true; do python app.py; done",
        "python app.py; echo stopped",
    ],
)
def test_a_script_no_shell_hands_pid1_over_in_is_a_warning_with_no_fix(
    tmp_path: Path, script: str
) -> None:
    manifest = web_deployment(f"command: [sh, -c, '{script}']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.severity is Severity.WARNING and finding.edits == ()
    assert "put `exec` in front of the command that starts the server" in finding.text


def test_dash_never_hands_pid1_over(tmp_path: Path) -> None:
    manifest = web_deployment("command: [dash, -c, 'python app.py']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.severity is Severity.WARNING and finding.fix.safe


def test_a_script_whose_last_command_is_the_server_is_info(tmp_path: Path) -> None:
    """bash (/bin/sh in Red Hat's family of images) runs it in its place, dash does not."""
    manifest = web_deployment("command: [sh, -c, 'cd /app && python app.py']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.severity is Severity.INFO and finding.edits == ()
    assert "SIGTERM may not reach" in finding.text


@pytest.mark.parametrize(
    "extra",
    [
        "command: [sh, -c, 'cd /app && exec python app.py']",
        "command: [sh, -c, 'exec > /tmp/log; exec python app.py']",
        "command: [sh, -c, 'OPTS=\"-Dx=1\" exec bin/server; echo never']",
        "command: [sh, -c, 'if [ -f x ]; then exec python a.py; else exec python b.py; fi']",
        "command: [sh, -c, 'trap \"kill $PID\" TERM; python app.py & PID=$!; wait']",
        "command: [tini, --, sh, -c, 'python app.py']",
        "command: [/usr/bin/dumb-init, --, npm, start]",
        "command: [bash, -c, 'python app.py']",
        "command: [python, app.py]",  # no code to read: no evidence either way
        "command: [/app/entrypoint.sh]",
    ],
)
def test_a_pid1_that_hands_sigterm_on_is_not_reported(tmp_path: Path, extra: str) -> None:
    assert klb406(tmp_path, {"manifest.yaml": web_deployment(extra)}) == []


def test_a_pod_that_shares_its_process_namespace_is_not_reported(tmp_path: Path) -> None:
    manifest = web_deployment(
        "command: [sh, -c, 'cd /app && python app.py']", "shareProcessNamespace: true"
    )
    assert klb406(tmp_path, {"manifest.yaml": manifest}) == []


# A secrets server started by a setup script under sh, as charts of stateful servers do.
SETUP_THEN_SERVE = (
    "command: [/bin/sh, -ec]\nargs:\n  - |\n    cp /config/base.hcl /tmp/server.hcl;\n"
    "    /usr/local/bin/entrypoint.sh keeper server -config=/tmp/server.hcl\n"
)


@pytest.mark.parametrize(
    "hook",
    [
        "[/bin/sh, -c, 'sleep 5 && kill -SIGTERM $(pidof keeper)']",
        "[sh, -c, 'sleep 5; kill -15 `pidof keeper`']",
        "[sh, -c, 'sleep 10 && pkill keeper']",
        "[sh, -c, 'sleep 5 && killall -s TERM keeper']",
        "[sh, -c, 'sleep 5 && kill -TERM -1']",
        "[/bin/kill, -s, TERM, '-1']",
    ],
)
def test_a_prestop_that_sends_the_server_sigterm_itself_is_not_reported(
    tmp_path: Path, hook: str
) -> None:
    """The shell stays PID 1, but the hook delivers SIGTERM to the server after its
    pause: the server hears it, and does not run on to SIGKILL."""
    manifest = web_deployment(
        f"{SETUP_THEN_SERVE}lifecycle:\n  preStop:\n    exec:\n      command: {hook}\n"
    )
    assert klb406(tmp_path, {"manifest.yaml": manifest}) == []


@pytest.mark.parametrize(
    "hook",
    [
        "[sh, -c, 'sleep 5 && kill 1']",  # PID 1 is the shell: it drops it
        "[sh, -c, 'sleep 5 && kill -9 $(pidof keeper)']",  # no stop, a kill
        "[sh, -c, 'sleep 5 && kill -HUP $(pidof keeper)']",  # a reload
        "[sh, -c, 'sleep 5 && pkill sh']",  # the shell again
        "[sh, -c, 'sleep 5 && pkill metrics-agent']",  # another program
        "[sh, -c, 'sleep 5']",
    ],
)
def test_a_prestop_that_does_not_signal_the_server_leaves_the_finding(
    tmp_path: Path, hook: str
) -> None:
    manifest = web_deployment(
        f"{SETUP_THEN_SERVE}lifecycle:\n  preStop:\n    exec:\n      command: {hook}\n"
    )
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert "sh -c is PID 1" in finding.message


def test_a_prestop_cannot_signal_a_runtime_that_is_pid1_itself(tmp_path: Path) -> None:
    """Python as PID 1 with no handler drops the hook's SIGTERM as it drops the kubelet's."""
    hook = "lifecycle:\n  preStop:\n    exec: {command: [sh, -c, 'kill -TERM $(pidof python)']}\n"
    files = built('CMD ["python", "app.py"]\n', app_py="print('serving')\n")
    files["manifest.yaml"] = web_deployment(hook)
    (finding,) = klb406(tmp_path, files)
    assert "python is PID 1" in finding.message


def test_a_job_is_not_reported(tmp_path: Path) -> None:
    job = (
        "apiVersion: batch/v1\nkind: Job\nmetadata: {name: once}\nspec:\n  template:\n"
        "    spec:\n      restartPolicy: Never\n      containers:\n        - name: once\n"
        "          image: registry.example/once:1\n"
        "          command: [sh, -c, 'cd /app && python once.py']\n"
    )
    assert klb406(tmp_path, {"job.yaml": job}) == []


def test_bash_with_several_commands_is_info(tmp_path: Path) -> None:
    manifest = web_deployment("command: [bash, -c, 'cd /app && python app.py']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.severity is Severity.INFO and "bash 5.1 and later" in finding.text


@pytest.mark.parametrize("words", ["[yarn, start]", "[pnpm, run, serve]"])
def test_yarn_or_pnpm_as_pid1_exits_at_once_and_takes_the_server_with_it(
    tmp_path: Path, words: str
) -> None:
    # they pass SIGTERM on but do not wait for the script: PID 1 ends, so does the pod,
    # and the server is killed whatever handler it has; it does not run on until SIGKILL
    (finding,) = klb406(tmp_path, {"manifest.yaml": web_deployment(f"command: {words}")})
    assert finding.severity is Severity.WARNING
    program = words.strip("[]").split(",")[0]
    headline = "SIGTERM stops container 'web' of Deployment/web at once, undrained"
    assert finding.message == f"{headline}: {program} is PID 1"
    assert "exits at once without waiting for it" in finding.text
    assert "whatever SIGTERM handler it has" in finding.text
    assert "runs on until SIGKILL" not in finding.text and "never reaches" not in finding.text
    assert "register a SIGTERM handler" in finding.text


@pytest.mark.parametrize("words", ["[npm, start]", "[npm, run, serve]"])
def test_npm_as_pid1_passes_sigterm_on_and_the_server_stops_undrained(
    tmp_path: Path, words: str
) -> None:
    # npm forwards SIGTERM to the script's shell: the server is not left until SIGKILL, it
    # stops at once, and exec form alone would leave node PID 1 with no handler
    (finding,) = klb406(tmp_path, {"manifest.yaml": web_deployment(f"command: {words}")})
    assert finding.severity is Severity.WARNING
    headline = "SIGTERM stops container 'web' of Deployment/web at once, undrained"
    assert finding.message == f"{headline}: npm is PID 1"
    assert "never reaches" not in finding.text and "runs on until SIGKILL" not in finding.text
    assert "register a SIGTERM handler" in finding.text
    assert "exec form alone makes node PID 1 with no handler" in finding.text


def test_npm_under_a_shell_that_may_hand_it_pid1_says_both_outcomes(tmp_path: Path) -> None:
    manifest = web_deployment("command: [sh, -c, 'cd /app && npm start']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": manifest})
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith(
        "SIGTERM never reaches container 'web' of Deployment/web, or stops it at once undrained"
    )
    dash = web_deployment("command: [dash, -c, 'cd /app && npm start']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": dash})
    assert "the shell passes no signal on, so npm never gets it" in finding.text


NODE_SERVER = "const http = require('http');\nhttp.createServer(() => {}).listen(8080);\n"
PACKAGE = '{"name": "web", "main": "server.js"}\n'


def test_node_as_pid1_with_no_sigterm_handler_is_reported(tmp_path: Path) -> None:
    files = built('CMD ["node", "server.js"]\n', server_js=NODE_SERVER, package_json=PACKAGE)
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile") and "no SIGTERM handler" in finding.text
    assert finding.severity is Severity.WARNING and finding.edits == ()


def test_node_with_a_sigterm_handler_is_not_reported(tmp_path: Path) -> None:
    handled = NODE_SERVER.replace(
        "http.createServer(() => {}).listen(8080);\n",
        "const server = http.createServer(() => {}).listen(8080);\n"
        "process.on('SIGTERM', () => server.close());\n",
    )
    files = built('CMD ["node", "server.js"]\n', server_js=handled, package_json=PACKAGE)
    assert klb406(tmp_path, files) == []


def test_python_as_pid1_is_reported_unless_its_server_handles_sigterm(tmp_path: Path) -> None:
    flask = "from flask import Flask\napp = Flask(__name__)\napp.run(port=8080)\n"
    files = built('CMD ["python", "app.py"]\n', app_py=flask)
    (finding,) = klb406(tmp_path / "flask", files)
    assert "python is PID 1" in finding.text
    served = "import uvicorn\nfrom api import app\nuvicorn.run(app, port=8080)\n"
    files = built('CMD ["python", "app.py"]\n', app_py=served, api_py="app = object()\n")
    assert klb406(tmp_path / "uvicorn", files) == []


def test_a_grpc_server_waited_on_is_left_to_klb403(tmp_path: Path) -> None:
    server = (
        "import grpc\nfrom concurrent import futures\n\n\ndef serve():\n"
        "    server = grpc.server(futures.ThreadPoolExecutor())\n"
        "    server.add_insecure_port('[::]:8080')\n    server.start()\n"
        "    server.wait_for_termination()\n\n\nserve()\n"
    )
    files = built('CMD ["python", "app.py"]\n', app_py=server)
    found = lint_files(tmp_path, files, ["KLB403", "KLB406"]).findings
    assert [f.rule for f in found] == ["KLB403"]


def test_one_finding_for_a_dockerfile_line_that_several_containers_run(tmp_path: Path) -> None:
    twice = web_deployment().replace("          ports:\n", "", 1)
    second = twice.split("---")[0].replace("name: web\n", "name: web2\n", 1)
    files = built("CMD python app.py\n", app_py=APP)
    files["second.yaml"] = second
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile")


@pytest.mark.parametrize(
    ("argv", "kind", "fixable"),
    [
        (["/bin/sh", "-c", "python app.py"], "shell", True),
        (["sh", "-ec", "python app.py"], "shell", True),
        (["sh", "-c", "python app.py | tee log"], "shell", False),
        (["sh", "-c", "python app.py\necho done"], "shell", False),
        (["sh", "-c", "exec npm start"], "launcher", False),
        (["sh", "-c", "PORT=80 python app.py"], "shell", False),  # `exec PORT=80` is wrong
        (["sh", "-c", "cd /app && exec node server.js"], "runtime", False),
        (["npm", "run", "start"], "launcher", False),
        (["python3.12", "-u", "app.py"], "runtime", False),
        (["go", "run", "./cmd/server"], "launcher", False),
        (["bundle", "exec", "rake", "serve:api"], "launcher", False),
        (["sh", "-c", "exec rake serve"], "launcher", False),
        (["flask", "--app", "shop", "run"], "runtime", False),
        (["python", "-m", "flask", "run"], "runtime", False),
        (["env", "PORT=8080", "node", "server.js"], "runtime", False),
        (["poetry", "run", "python", "app.py"], "runtime", False),
        (["gosu", "app", "sh", "-c", "python app.py"], "shell", True),
        (["/usr/bin/envdir", "/etc/env", "node", "server.js"], "runtime", False),
    ],
)
def test_what_a_command_line_leaves_as_pid1(argv: list[str], kind: str, fixable: bool) -> None:
    found = pid1(argv)
    assert found is not None and (found.kind, found.exec_prefix) == (kind, fixable)


@pytest.mark.parametrize(
    "argv",
    [
        ["bundle", "exec", "puma", "-C", "config/puma.rb"],  # exec'd: puma handles SIGTERM
        ["make", "serve"],  # make passes SIGTERM to its recipes
        ["mvn", "spring-boot:run"],  # stops the app it forks from a shutdown hook
        ["gosu", "app", "/usr/local/bin/server"],
        ["flask", "routes"],  # no server
        ["go", "build", "./..."],
    ],
)
def test_a_program_that_execs_or_passes_sigterm_on_is_not_a_launcher(argv: list[str]) -> None:
    assert pid1(argv) is None


# A Sinatra service started the way a Rakefile task does it, with the task's name as args.
RAKE_TASK = "command: [bundle, exec, rake]\nargs: ['serve:books']"


def test_a_launcher_that_keeps_the_server_as_its_child_is_a_warning(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, {"manifest.yaml": web_deployment(RAKE_TASK)})
    assert finding.severity is Severity.WARNING and finding.edits == ()
    assert finding.message.endswith("rake is PID 1")
    assert "exits on SIGTERM without passing it on" in finding.text
    assert "run the server itself as PID 1" in finding.text


GO_SERVER = (
    'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.ListenAndServe(":8080", nil)\n}\n'
)


def test_go_run_under_a_shell_form_line_is_a_warning_with_no_exec_form_fix(
    tmp_path: Path,
) -> None:
    """The shell may hand PID 1 over to `go run`, but `go run` keeps the server as its
    child: the exec form would change nothing, so none is offered."""
    files = built("ENTRYPOINT go run main.go\n", main_go=GO_SERVER)
    files["go.mod"] = "module example.com/web\n"
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile") and finding.severity is Severity.WARNING
    assert finding.message.endswith(
        "shell-form ENTRYPOINT makes /bin/sh PID 1, then go run runs the server"
    )
    assert "would leave go run as PID 1" in finding.text and finding.edits == ()
    assert "go build" in finding.text


FLASK_APP = "from flask import Flask\n\napp = Flask(__name__)\n"


def test_flask_run_is_python_as_pid1_judged_by_its_folders_code(tmp_path: Path) -> None:
    """`flask run` names no module (Flask finds the app by FLASK_APP or app.py): the code
    of the folder the image is built from is what it runs."""
    entry = 'ENTRYPOINT ["flask", "run", "--host=0.0.0.0"]\n'
    (finding,) = klb406(tmp_path / "bare", built(entry, app_py=FLASK_APP))
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith("flask (Python) is PID 1 of container 'web'")
    handled = FLASK_APP + "\nimport signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"
    assert klb406(tmp_path / "handled", built(entry, app_py=handled)) == []


def test_a_container_no_service_sends_clients_to_is_info(tmp_path: Path) -> None:
    loop = web_deployment("command: [/bin/sh]\nargs: [-c, 'while true; do work; done']")
    (finding,) = klb406(tmp_path, {"manifest.yaml": loop.split("---")[0]})
    assert finding.severity is Severity.INFO and "no Service sends it clients" in finding.text


def test_the_exec_goes_into_the_args_word_that_holds_the_script(tmp_path: Path) -> None:
    worker = web_deployment("command: [/bin/sh]\nargs: [-c, work --forever]", service=False)
    (finding,) = klb406(tmp_path, {"manifest.yaml": worker})
    assert finding.edits[0].target[-2:] == ("args", 1)  # type: ignore[union-attr]


@pytest.mark.parametrize("waits", ["sleep 365d", "tail -f /dev/null"])
def test_a_shell_that_only_waits_gets_no_exec_fix(tmp_path: Path, waits: str) -> None:
    # sleep or tail as PID 1 ignore SIGTERM as the shell does: exec would change nothing
    toolbox = web_deployment(f"command: [/bin/sh]\nargs: [-c, {waits}]", service=False)
    (finding,) = klb406(tmp_path, {"manifest.yaml": toolbox})
    assert finding.severity is Severity.INFO and finding.edits == ()
    assert "exec alone changes nothing" in finding.text
    assert f"trap 'exit 0' TERM; {waits} & wait" in finding.text


def test_a_dockerfile_reported_alone_gets_its_finding_and_a_manifest_alone_does_not(
    tmp_path: Path,
) -> None:
    """What a pre-commit hook runs (`--context`): the finding is the Dockerfile's."""
    for name, text in built("CMD python app.py\n", app_py=APP).items():
        (tmp_path / name).write_text(text)
    found = discover([str(tmp_path)])
    settings = Settings(rules=select_rules(["KLB406"], []))

    def reporting(name: str) -> list[Finding]:
        sources = [replace(s, report=s.path.endswith(name)) for s in found.sources]
        return run(sources, settings).findings

    (finding,) = reporting("Dockerfile")
    assert finding.path.endswith("Dockerfile")
    assert reporting("manifest.yaml") == []


def test_add_noqa_writes_no_comment_into_a_dockerfile(tmp_path: Path) -> None:
    """`CMD ["python", "app.py"]  # ...` would no longer be the exec form: refused."""
    for name, text in built("CMD python app.py\n", app_py=APP).items():
        (tmp_path / name).write_text(text)
    before = (tmp_path / "Dockerfile").read_text()
    done = CliRunner().invoke(
        cli, ["check", "--isolated", "--select", "KLB406", "--add-noqa", str(tmp_path)]
    )
    assert "per-file-ignores" in done.output
    assert (tmp_path / "Dockerfile").read_text() == before


def test_a_shell_that_would_hand_over_to_python_with_no_handler_is_a_warning(
    tmp_path: Path,
) -> None:
    """Whichever shell /bin/sh is, SIGTERM reaches nothing that handles it."""
    flask = "from flask import Flask\napp = Flask(__name__)\napp.run(port=8080)\n"
    (finding,) = klb406(tmp_path, built("CMD python app.py\n", app_py=flask))
    assert finding.severity is Severity.WARNING and finding.fix.safe
    assert "and python, once PID 1, has no SIGTERM handler in its code either" in finding.text
    assert finding.message.startswith("SIGTERM never reaches")


def test_a_line_edit_keeps_the_line_ending_and_refuses_a_line_that_changed() -> None:
    from k8slb.core.edits import LineEdit
    from k8slb.editing.line_edit import edit_lines

    text = "FROM base\r\n  CMD python app.py\r\nCMD other\r\n"
    refusals: list[str] = []
    done = edit_lines(text, [LineEdit("D", 2, "CMD python app.py", 'CMD ["python"]')], refusals)
    assert done == 'FROM base\r\n  CMD ["python"]\r\nCMD other\r\n' and refusals == []
    stale = edit_lines(text, [LineEdit("D", 3, "CMD python app.py", "CMD x")], refusals)
    assert stale == text and "no longer reads" in refusals[0]
