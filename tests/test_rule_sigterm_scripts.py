"""KLB406 and the shell scripts of the tree a container runs (an entry point that ends with
`exec "$@"`, a CMD that runs a script that never execs its server), and servers whose
library installs a SIGTERM handler of its own (werkzeug's reloader)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.languages.python.parse import parse
from k8slb.reading.build_files import ShellScript, read_build_file
from k8slb.rulekit.examples import web_deployment
from k8slb.rules.sigterm_never_reaches_server import script_pid1

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
# A Python server that stops on SIGTERM: once it is PID 1, the signal reaches it.
APP = "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n"
# An entry point that waits for the database, then hands over to the CMD.
ENTRYPOINT = """\
#!/bin/sh
set -e
# wait for the database before the service starts
until nc -z "$DB_HOST" 5432; do
  echo "waiting for $DB_HOST"; sleep 1
done
exec "$@"
"""
# A start script that migrates, then runs the server as its child.
RUN = """\
#!/bin/bash
cd /srv/app
python manage.py migrate --noinput
python app.py --port 8080
"""


def built(dockerfile: str, files: dict[str, str]) -> dict[str, str]:
    """web_deployment()'s container, its image built here from `dockerfile`, on a base
    that names no distribution (which shell /bin/sh is stays unknown)."""
    return {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": "FROM registry.example/python:3.12\nWORKDIR /srv/app\nCOPY . /srv/app\n"
        + dockerfile,
        **files,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def script(text: str, shell: str = "sh") -> ShellScript:
    return ShellScript("docker/entrypoint.sh", shell, text)


def test_a_scripts_shell_is_read_from_its_first_line() -> None:
    for first, shell in [("#!/bin/bash -e", "bash"), ("#!/usr/bin/env bash", "bash"), ("", "sh")]:
        read = read_build_file("run.sh", f"{first}\necho hi\n".encode())
        assert read is not None and read.script is not None and read.script.shell == shell


@pytest.mark.parametrize(
    ("text", "args", "expected"),
    [
        # `exec "$@"` hands PID 1 to the arguments: here the shell a shell-form CMD makes
        (ENTRYPOINT, ["/bin/sh", "-c", "java -jar app.jar"], ("shell", "sh", "")),
        (ENTRYPOINT, ["node", "server.js"], ("runtime", "node", "")),
        (RUN, [], ("shell", "sh", "entrypoint.sh")),
        ("exec >>/var/log/app.log 2>&1\npython app.py\n", [], ("shell", "sh", "entrypoint.sh")),
        ("exec python app.py\n", [], ("runtime", "python", "")),
        # the script handles the signal, sets its arguments anew, or hands over to a
        # program k8slb does not know: nothing to say
        ("trap 'kill -TERM $child' TERM\npython app.py & child=$!\nwait\n", [], None),
        ('set -- gunicorn app:app "$@"\nexec "$@"\n', ["--workers", "2"], None),
        ('exec gosu app "$@"\n', ["python", "app.py"], None),
        # a heredoc's lines are its command's input, up to its end word (tabs dropped
        # for `<<-`); one that never ends is not read
        (
            "cat <<EOF > /tmp/conf\nport: 8080\nEOF\npython app.py\n",
            [],
            ("shell", "sh", "entrypoint.sh"),
        ),
        (
            "cat > /tmp/c <<-'END'\n\texec nothing\n\tEND\nexec python app.py\n",
            [],
            ("runtime", "python", ""),
        ),
        ("cat <<EOF > /tmp/conf\nport: 8080\npython app.py\n", [], None),
    ],
    ids=[
        "exec-args-shell",
        "exec-args-node",
        "no-exec",
        "exec-redirects-only",
        "exec-server",
        "trap",
        "set-args",
        "unknown-program",
        "heredoc",
        "heredoc-tabs-quoted",
        "heredoc-unended",
    ],
)
def test_what_a_script_leaves_as_pid1(
    text: str, args: list[str], expected: tuple[str, str, str] | None
) -> None:
    found = script_pid1(script(text), args)
    assert (found and (found.kind, found.program, found.script)) == (expected or None)


def test_the_last_command_of_a_script_is_what_its_shell_runs_last() -> None:
    found = script_pid1(script(RUN, "bash"), [])
    assert found is not None and found.last == ("python", "app.py", "--port", "8080")


def test_an_entry_point_that_execs_its_arguments_is_judged_by_its_shell_form_cmd(
    tmp_path: Path,
) -> None:
    files = built(
        'ENTRYPOINT ["/srv/app/docker/entrypoint.sh"]\nCMD python app.py --port 8080\n',
        {"docker/entrypoint.sh": ENTRYPOINT, "app.py": APP},
    )
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("Dockerfile") and finding.line == 5, "the CMD's line"
    assert "shell-form CMD makes /bin/sh PID 1" in finding.text
    assert finding.severity is Severity.INFO
    assert 'write CMD ["python", "app.py", "--port", "8080"]' in finding.text
    exec_form = dict(
        files,
        Dockerfile=files["Dockerfile"].replace(
            "CMD python app.py --port 8080", 'CMD ["python", "app.py", "--port", "8080"]'
        ),
    )
    assert klb406(tmp_path / "exec-form", exec_form) == []


def test_a_script_run_as_the_program_that_never_execs_is_pid1(tmp_path: Path) -> None:
    files = built('CMD ["./run.sh"]\n', {"run.sh": RUN, "app.py": APP})
    (finding,) = klb406(tmp_path, files)
    assert (finding.line, finding.severity) == (4, Severity.WARNING)
    assert "run.sh is PID 1, a bash script that runs each of its commands as a child" in (
        finding.text
    )
    assert "`exec python app.py --port 8080`" in finding.text and finding.edits == ()
    execs = RUN.replace("python app.py --port", "exec python app.py --port")
    assert klb406(tmp_path / "execs", dict(files, **{"run.sh": execs})) == []


@pytest.mark.parametrize("cmd", ["CMD ./run.sh;", "CMD run.sh"], ids=["path", "in-path"])
def test_a_shell_form_cmd_running_a_script_that_never_execs_is_certain(
    tmp_path: Path, cmd: str
) -> None:
    dockerfile = f"COPY run.sh /usr/local/bin/run.sh\n{cmd}\n"
    (finding,) = klb406(tmp_path, built(dockerfile, {"run.sh": RUN, "app.py": APP}))
    assert finding.severity is Severity.WARNING and finding.edits == ()
    assert finding.message.startswith("SIGTERM never reaches")
    assert "run.sh, which it runs, is a bash script" in finding.text
    assert "put exec in front of the last command of run.sh" in finding.text


def test_a_shell_form_cmd_running_a_script_that_execs_stays_info(tmp_path: Path) -> None:
    execs = RUN.replace("python app.py --port", "exec python app.py --port")
    (finding,) = klb406(tmp_path, built("CMD ./run.sh\n", {"run.sh": execs, "app.py": APP}))
    assert finding.severity is Severity.INFO and finding.edits != ()


FLASK = """\
from flask import Flask

app = Flask(__name__)


@app.route("/")
def index():
    return "hello"


if __name__ == "__main__":
    app.run(host="0.0.0.0", port=8080RUN)
"""


@pytest.mark.parametrize(
    ("run", "reloader"),
    [
        (", debug=True", True),
        (", use_reloader=True", True),
        (", debug=True, use_reloader=False", False),
        ("", False),
        (", debug=DEBUG", False),
    ],
    ids=["debug", "use-reloader", "debug-without-reloader", "plain", "debug-unknown"],
)
def test_werkzeugs_reloader_is_a_server_that_handles_sigterm(run: str, reloader: bool) -> None:
    facts = parse("app.py", FLASK.replace("RUN", run).encode())
    assert bool(facts.signal_servers) is reloader


def test_flask_in_debug_as_pid1_is_not_reported(tmp_path: Path) -> None:
    debug = built('CMD ["python", "app.py"]\n', {"app.py": FLASK.replace("RUN", ", debug=True")})
    assert klb406(tmp_path / "debug", debug) == []
    plain = built('CMD ["python", "app.py"]\n', {"app.py": FLASK.replace("RUN", "")})
    assert [f.rule for f in klb406(tmp_path / "plain", plain)] == ["KLB406"]


PACKAGE = '{"name": "web", "scripts": {"start": "node server.js"}}\n'
NODE_SERVER = "const http = require('http');\nhttp.createServer(() => {}).listen(8080);\n"


@pytest.mark.parametrize(
    "dockerfile",
    ["CMD npm start\n", 'ENTRYPOINT ["/srv/app/docker/entrypoint.sh"]\nCMD npm start\n'],
    ids=["cmd", "entry-point-execs-the-cmd"],
)
def test_a_shell_that_runs_npm_never_passes_sigterm_on_and_exec_form_is_no_fix(
    tmp_path: Path, dockerfile: str
) -> None:
    files = {
        "docker/entrypoint.sh": ENTRYPOINT,
        "package.json": PACKAGE,
        "server.js": NODE_SERVER,
    }
    (finding,) = klb406(tmp_path, built(dockerfile, files))
    assert finding.line == 4 + dockerfile.count("\n") - 1, "the CMD's line"
    assert finding.severity is Severity.WARNING and finding.edits == ()
    assert finding.message.endswith("then npm runs the server")
    assert 'CMD ["node", "server.js"]' in finding.text


# A start script that sets the environment and runs the server as its last command.
START = """\
#!/bin/bash
export APP_ENV=production
ruby server.rb --port 8080
"""


def test_a_shell_run_on_a_script_file_in_the_image_is_pid1(tmp_path: Path) -> None:
    # `sh start.sh`: the shell named runs the file (not its first line's bash), and a
    # shell running a file runs its last command as a child too
    files = built('CMD ["sh", "start.sh"]\n', {"start.sh": START})
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("/Dockerfile") and finding.line == 4
    assert finding.severity is Severity.WARNING
    assert "start.sh is PID 1, a sh script that runs each of its commands as a child" in (
        finding.text
    )
    assert "`exec ruby server.rb --port 8080`" in finding.text
    execs = START.replace("ruby server.rb", "exec ruby server.rb")
    assert klb406(tmp_path / "execs", dict(files, **{"start.sh": execs})) == []


def test_a_manifest_that_runs_a_script_of_the_tree_under_a_shell_is_judged_by_the_script(
    tmp_path: Path,
) -> None:
    # no build file says where the image is built: the tree's script of that name is read
    manifest = web_deployment("command: [sh]\nargs: [docker-entrypoint.sh]")
    files = {"manifest.yaml": manifest, "frontend/docker-entrypoint.sh": START}
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("/manifest.yaml") and finding.severity is Severity.WARNING
    assert "docker-entrypoint.sh is PID 1, a sh script" in finding.text
    # a second script of that name that execs: which one the image has is unknown
    execs = START.replace("ruby server.rb", "exec ruby server.rb")
    other = {**files, "worker/docker-entrypoint.sh": execs}
    assert klb406(tmp_path / "two", other) == []
    # with no script of that name in the tree, nothing is known of what it runs
    assert klb406(tmp_path / "none", {"manifest.yaml": manifest}) == []


@pytest.mark.parametrize(
    "argv",
    [["sh", "-c", "start.sh"], ["bash", "-o", "pipefail", "start.sh"], ["sh"]],
    ids=["command-string", "option-with-a-value", "no-operand"],
)
def test_a_shell_with_no_script_file_operand_is_not_read_as_running_one(
    tmp_path: Path, argv: list[str]
) -> None:
    manifest = web_deployment(f"command: {argv}".replace("'", '"'))
    found = klb406(tmp_path, {"manifest.yaml": manifest, "start.sh": START})
    assert not any("start.sh is PID 1" in finding.text for finding in found)


def test_a_script_added_into_a_folder_named_without_a_slash_is_followed(tmp_path: Path) -> None:
    # `ADD run.sh /opt/app` over a folder the image has puts /opt/app/run.sh
    dockerfile = "RUN mkdir /opt/app\nADD run.sh /opt/app\nCMD /opt/app/run.sh\n"
    (finding,) = klb406(tmp_path, built(dockerfile, {"run.sh": RUN, "app.py": APP}))
    assert finding.severity is Severity.WARNING and finding.line == 6
    assert "run.sh, which it runs, is a bash script" in finding.text


def test_a_module_built_from_the_folder_above_runs_the_script_its_dockerfile_adds(
    tmp_path: Path,
) -> None:
    """`docker build . -f api/Dockerfile` links the api module, and the Dockerfile's paths
    (`ADD api/run.sh /opt/`) are the context's: the script is still found and judged."""
    java = "package api;\n\nclass Main {\n  public static void main(String[] a) {}\n}\n"
    files = {
        "manifest.yaml": web_deployment(),
        "README.md": "Build:\n\n    docker build . -f api/Dockerfile -t registry.example/web\n",
        "settings.gradle": "include 'api', 'worker'\n",
        "api/build.gradle": "plugins { id 'application' }\n",
        "api/Dockerfile": "FROM registry.example/temurin:21\nADD api/build/install/* /api/\n"
        'ADD api/run.sh /opt/\nENTRYPOINT ["/opt/run.sh"]\n',
        "api/run.sh": "#!/bin/bash\necho starting\n/api/bin/api --port 8080\n",
        "api/src/main/java/api/Main.java": java,
        "worker/build.gradle": "plugins { id 'application' }\n",
        "worker/src/main/java/worker/Main.java": java.replace("api", "worker"),
    }
    (finding,) = klb406(tmp_path, files)
    assert "run.sh is PID 1, a bash script that runs each of its commands as a child" in (
        finding.text
    )


def test_a_dockerfile_named_in_lowercase_is_the_folders_dockerfile(tmp_path: Path) -> None:
    # Docker's CLI takes `dockerfile` when a folder has no `Dockerfile`
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD.replace("context: .", "context: server"),
        "server/dockerfile": "FROM node:22\nWORKDIR /app\nCOPY . .\nCMD npm start\n",
        "server/package.json": PACKAGE,
        "server/server.js": NODE_SERVER,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("/server/dockerfile") and finding.line == 4
    assert finding.severity is Severity.WARNING and "then npm runs the server" in finding.text


def test_a_linked_container_with_no_dockerfile_reads_the_script_of_its_own_folder(
    tmp_path: Path,
) -> None:
    # the image is built from web/ by a build k8slb sees no Dockerfile of: the worker's
    # script of the same name, which execs, is another image's
    execs = START.replace("ruby server.rb", "exec ruby server.rb")
    files = {
        "manifest.yaml": web_deployment("command: [sh]\nargs: [start.sh]"),
        "skaffold.yaml": SKAFFOLD.replace("context: .", "context: web"),
        "web/app.py": APP,
        "web/start.sh": START,
        "worker/start.sh": execs,
    }
    (finding,) = klb406(tmp_path, files)
    assert "start.sh is PID 1, a sh script" in finding.text
    assert klb406(tmp_path / "execs", {**files, "web/start.sh": execs}) == []


def test_a_script_a_folder_copy_put_is_found_past_a_later_copy_into_that_folder(
    tmp_path: Path,
) -> None:
    # the folder's COPY put start.sh in /srv/app; the later one-file COPY into /srv/app
    # covers the path without holding the script
    dockerfile = 'COPY extra/settings.patch /srv/app\nCMD ["sh", "start.sh"]\n'
    files = built(dockerfile, {"start.sh": START, "extra/settings.patch": "--- a\n"})
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING
    assert "start.sh is PID 1, a sh script" in finding.text


# A Flask app its factory makes: the factory adds the routes and returns the app.
FACTORY = """\
from flask import Flask


def create_app():
    app = Flask(__name__)

    @app.route("/")
    def index():
        return "hello"

    return app


if __name__ == "__main__":
    app = create_app()
    app.run(host="0.0.0.0", port=8080RUN)
"""
# The same factory defined below the function that runs what it makes.
FACTORY_BELOW = """\
from flask import Flask


def main():
    app = make_app()
    app.run(host="0.0.0.0", port=8080RUN)


def make_app():
    return Flask(__name__)


main()
"""
# A factory that returns something else than a Flask app.
NOT_FLASK = """\
class Server:
    def run(self, debug=False):
        pass


def create_app():
    return Server()


app = create_app()
app.run(debug=True)
"""


@pytest.mark.parametrize(
    ("source", "reloader"),
    [
        (FACTORY.replace("RUN", ", debug=True"), True),
        (FACTORY.replace("RUN", ""), False),
        (FACTORY.replace("RUN", ", debug=True, use_reloader=False"), False),
        (FACTORY_BELOW.replace("RUN", ", use_reloader=True"), True),
        (FACTORY_BELOW.replace("RUN", ""), False),
        (NOT_FLASK, False),
    ],
    ids=["debug", "plain", "no-reloader", "below-reloader", "below-plain", "not-flask"],
)
def test_a_flask_app_made_by_a_factory_function_runs_werkzeugs_reloader(
    source: str, reloader: bool
) -> None:
    facts = parse("app.py", source.encode())
    assert bool(facts.signal_servers) is reloader


def test_flask_from_a_factory_in_debug_as_pid1_is_not_reported(tmp_path: Path) -> None:
    debug = built('CMD ["python", "app.py"]\n', {"app.py": FACTORY.replace("RUN", ", debug=True")})
    assert klb406(tmp_path / "debug", debug) == []
    plain = built('CMD ["python", "app.py"]\n', {"app.py": FACTORY.replace("RUN", "")})
    assert [f.rule for f in klb406(tmp_path / "plain", plain)] == ["KLB406"]


# A start script that writes a config file with a heredoc, then runs its supervisor.
SUPERVISED = """\
#!/bin/sh
mkdir -p "$DATA_DIR"
cat > /etc/periodic/hourly/cleanup <<EOF
#!/bin/sh
find $DATA_DIR -mtime +7 -delete
EOF
supervisord -c /etc/supervisord.conf
"""


def test_a_shell_entrypoint_whose_cmd_names_a_script_is_judged_by_the_script(
    tmp_path: Path,
) -> None:
    # ENTRYPOINT ["sh"] with CMD ["./bin/start.sh"]: the image's own entry point, no
    # command in the manifest, runs the script file as sh's operand
    files = built('ENTRYPOINT ["sh"]\nCMD ["./bin/start.sh"]\n', {"bin/start.sh": SUPERVISED})
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("/Dockerfile") and finding.severity is Severity.WARNING
    assert "start.sh is PID 1, a sh script" in finding.text
    assert "`exec supervisord -c /etc/supervisord.conf`" in finding.text


# A Dockerfile whose final stages start FROM a stage the platform chooses.
PLATFORM_STAGES = """\
FROM registry.example/base:1 AS base
FROM base AS build-amd64
COPY docker/entrypoint.sh /usr/local/bin/
WORKDIR /srv
FROM base AS build-arm64
COPY docker/entrypoint.sh /usr/local/bin/
RUN echo "fetch the arm64 browser"
FROM build-${TARGETARCH} AS build
WORKDIR /srv/app
COPY . /srv/app
ENTRYPOINT ["/bin/bash", "/usr/local/bin/entrypoint.sh"]
"""
# Two programs left in the background, the shell waiting for either.
BACKGROUND = """\
#!/bin/bash
{ cd /srv/app/api && node index.js; } &
{ node /srv/app/worker/index.js; } &
wait -n
exit $?
"""


def test_a_stage_the_platform_chooses_keeps_what_every_choice_copied(tmp_path: Path) -> None:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": PLATFORM_STAGES,
        "docker/entrypoint.sh": BACKGROUND,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.path.endswith("/Dockerfile") and finding.line == 11
    assert "entrypoint.sh is PID 1, a bash script" in finding.text
    # the script ends with builtins: the fix is no `exec wait -n`
    assert "run the server last in entrypoint.sh" in finding.text
    assert "`exec" not in finding.text
    # a script only one platform's stage copies is not known to be in the image
    one = PLATFORM_STAGES.replace("COPY docker/entrypoint.sh /usr/local/bin/\nRUN", "RUN")
    assert klb406(tmp_path / "one", dict(files, Dockerfile=one)) == []
