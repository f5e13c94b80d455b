"""KLB406 and images built from a folder that holds only a Dockerfile and its scripts, the
program coming from a release archive the Dockerfile adds (`ADD target/ingest-bin.tar.gz
/opt/ingest`): a build of the image names the folder, but no code is linked to it. What
runs as PID 1 needs no code: the CMD, and the script a COPY or ADD put there, are judged
as for a linked image; only a shell or an init is reported so (whether Python, Node or
npm has a SIGTERM handler is in code no link names). Also `exec` in a pipeline (`exec
java ... | tee log`), which replaces only the pipeline's subshell, and an init whose child
is `bash -c` with one command, which bash runs in its own place."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

# The image's script: configure, start the server through the release's own script
# (which runs `nohup java ... &`), then follow its log.
ENTRY = """\
#!/bin/bash
file_path=$(cd "$(dirname "$0")"/../; pwd)
sed -i "s/db.url=.*$/db.url=${DB_URL}/g" "${file_path}/conf/app.properties"
sh "${file_path}/bin/startup.sh"
sleep 3
tail -F "${file_path}/logs/ingest.log"
"""
DOCKERFILE = """\
FROM registry.example/jre:17
WORKDIR /opt/ingest
ARG VERSION
ADD target/ingest-${VERSION}-bin.tar.gz /opt/ingest
ADD ingest-docker.sh bin/
RUN chmod +x bin/ingest-docker.sh
CMD {cmd}
"""
BUILD = (
    "#!/bin/bash\nversion=$(git describe --tags)\n"
    "docker build -t registry.example/web:${version} ingest/docker/ "
    "--build-arg VERSION=${version}\n"
)


def tree(
    entry: str = ENTRY, cmd: str = '["bin/ingest-docker.sh"]', build: str = BUILD
) -> dict[str, str]:
    return {
        "deploy/web.yaml": web_deployment(),
        "docker/build-images.sh": build,
        "ingest/docker/Dockerfile": DOCKERFILE.replace("{cmd}", cmd),
        "ingest/docker/ingest-docker.sh": entry,
        "ingest/server/pom.xml": "<project><artifactId>ingest-server</artifactId></project>\n",
        "ingest/server/src/main/java/acme/Ingest.java": "package acme;\nclass Ingest {}\n",
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_a_script_of_an_image_linked_to_no_code_is_judged(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree())
    assert finding.path.endswith("ingest/docker/Dockerfile") and finding.line == 7
    assert finding.severity is Severity.WARNING
    assert "ingest-docker.sh is PID 1, a bash script" in finding.text
    # the script waits on what it started: exec in front of tail would change nothing
    assert "waits last with tail" in finding.text and "exec tail" not in finding.text
    assert "trap TERM" in finding.text


def test_a_script_that_traps_term_is_not_reported(tmp_path: Path) -> None:
    trapped = ENTRY.replace("sleep 3\n", "trap 'kill -TERM $(cat app.pid)' TERM\nsleep 3\n")
    assert klb406(tmp_path, tree(trapped)) == []


def test_a_script_that_execs_the_server_is_not_reported(tmp_path: Path) -> None:
    execs = ENTRY.replace(
        'sh "${file_path}/bin/startup.sh"\nsleep 3\ntail -F "${file_path}/logs/ingest.log"\n',
        'exec java -jar "${file_path}/lib/ingest.jar"\n',
    )
    assert klb406(tmp_path, tree(execs)) == []


@pytest.mark.parametrize(
    "cmd",
    [
        '["java", "-jar", "lib/ingest.jar"]',  # not a shell: nothing to say
        '["node", "server.js"]',  # a handler, or not, is in code no link names
        '["npm", "start"]',
    ],
)
def test_no_code_leaves_a_runtime_or_npm_unjudged(tmp_path: Path, cmd: str) -> None:
    assert klb406(tmp_path, tree(cmd=cmd)) == []


def test_no_build_of_the_image_leaves_its_dockerfile_unread(tmp_path: Path) -> None:
    # a Dockerfile no build names is no evidence of what the image runs
    other = "#!/bin/bash\ndocker build -t registry.example/other:1 ingest/docker/\n"
    assert klb406(tmp_path, tree(build=other)) == []


SERVER_SCRIPT = """\
#!/bin/bash
BIN=$(cd "$(dirname "$0")"; pwd)
LOG="${BIN}/../logs/server.log"
mkdir -p "$(dirname "$LOG")"
exec java $JAVA_OPTS -cp "${BIN}/../lib/*" acme.Server "$@" | tee -a "$LOG" 2>&1
"""


def test_exec_in_a_pipeline_leaves_the_script_pid_1(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree(SERVER_SCRIPT))
    assert "ingest-docker.sh is PID 1, a bash script" in finding.text
    assert "exec in a pipeline replaces only the pipeline's subshell" in finding.text
    assert "`exec java ...` outside the pipeline" in finding.text


def test_exec_outside_a_pipeline_hands_over(tmp_path: Path) -> None:
    redirected = SERVER_SCRIPT.replace('| tee -a "$LOG" 2>&1', '>> "$LOG" 2>&1')
    assert klb406(tmp_path, tree(redirected)) == []


def test_sh_c_with_exec_in_a_pipeline_keeps_the_shell(tmp_path: Path) -> None:
    files = {"web.yaml": web_deployment("command: [sh, -c, 'exec python app.py | tee log']")}
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING
    files = {"web.yaml": web_deployment("command: [sh, -c, 'exec python app.py > log']")}
    assert klb406(tmp_path, files) == []


@pytest.mark.parametrize(
    "command",
    ["/opt/ingest/bin/ingest-docker.sh start", "bin/ingest-docker.sh"],
)
def test_tini_over_bash_c_of_a_script_that_execs_in_a_pipeline(
    tmp_path: Path, command: str
) -> None:
    cmd = '["/bin/bash", "-c", "' + command + '"]'
    files = tree(SERVER_SCRIPT, cmd=cmd)
    files["ingest/docker/Dockerfile"] = files["ingest/docker/Dockerfile"].replace(
        "CMD ", 'ENTRYPOINT ["/sbin/tini", "--"]\nCMD '
    )
    (finding,) = klb406(tmp_path, files)
    assert "tini is PID 1 and passes SIGTERM to its child alone, ingest-docker.sh" in (finding.text)
    assert "runs `exec java $JAVA_OPTS -cp ...` in a pipeline" in finding.text
    assert "run tini with -g" in finding.text


def test_tini_over_bash_c_of_several_commands_is_not_looked_through(tmp_path: Path) -> None:
    cmd = '["/bin/bash", "-c", "cd /opt/ingest; bin/ingest-docker.sh"]'
    files = tree(SERVER_SCRIPT, cmd=cmd)
    files["ingest/docker/Dockerfile"] = files["ingest/docker/Dockerfile"].replace(
        "CMD ", 'ENTRYPOINT ["/sbin/tini", "--"]\nCMD '
    )
    assert klb406(tmp_path, files) == []
