"""KLB406 through the scripts of the tree that a shell or a script hands PID 1 over to:
`bash -c` with one command (variables set before it, `-ecx`), `exec ./start.sh` in an
entry point, and a script named by an image's absolute path that no Dockerfile copies."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.model.scripts import tail_scripts
from k8slb.reading.build_files import ShellScript
from k8slb.rulekit.examples import web_deployment
from k8slb.rules.sigterm_never_reaches_server import pid1

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
# A daemon script that checks, then starts the service through a function, as a child.
DAEMON = """\
#!/usr/bin/env bash
cd `dirname $0`
start() {
  echo "starting $1"
  sh ./run-$1.sh
}
start $2
"""
# A start script that runs the JVM in the foreground, as a child.
START = "#!/bin/bash\necho starting\njava -jar /srv/app/app.jar\n"


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_bash_hands_a_lone_command_over_with_the_variables_set_before_it() -> None:
    # bash 5.2, checked: `bash -ecx 'FOO=1 sleep 1'` leaves sleep in bash's place
    for argv in (["bash", "-c", "MODE=fg python app.py"], ["bash", "-ecx", "python app.py"]):
        found = pid1(argv)
        assert found is not None and (found.kind, found.program) == ("runtime", "python"), argv
    # dash keeps the shell, a lone command too; `-o NAME` is no command option
    kept = pid1(["sh", "-c", "MODE=fg python app.py"], "dash")
    assert kept is not None and kept.kind == "shell"
    assert pid1(["bash", "-o", "pipefail", "run.sh"]) is None


def test_a_manifests_bash_c_hands_pid1_to_a_script_of_the_tree_by_the_images_path(
    tmp_path: Path,
) -> None:
    command = 'command: [/bin/bash, -ecx, "MODE=fg /opt/svc/sbin/daemon.sh start web"]'
    files = {
        "deploy/manifest.yaml": web_deployment(command),
        "dist/package/sbin/daemon.sh": DAEMON,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING and finding.path.endswith("deploy/manifest.yaml")
    assert "daemon.sh is PID 1" in finding.text and "a bash script" in finding.text
    assert "/opt/svc/sbin/daemon.sh is the repository's " in finding.text
    assert "dist/package/sbin/daemon.sh)" in finding.text
    assert "`exec sh ./run-$1.sh`" in finding.text
    # a script that hands PID 1 over with exec, to a file its variables name: not followed
    execs = DAEMON.replace("  sh ./run", "  exec sh ./run")
    assert klb406(tmp_path / "execs", dict(files, **{"dist/package/sbin/daemon.sh": execs})) == []


def test_a_script_name_two_scripts_of_the_tree_end_with_is_not_guessed(tmp_path: Path) -> None:
    command = 'command: [/bin/bash, -c, "/opt/svc/sbin/daemon.sh start web"]'
    files = {
        "deploy/manifest.yaml": web_deployment(command),
        "a/sbin/daemon.sh": DAEMON,
        "b/sbin/daemon.sh": DAEMON,
    }
    assert klb406(tmp_path, files) == []
    scripts = {p: ShellScript(p, "bash", DAEMON) for p in ("a/sbin/daemon.sh", "b/sbin/d.sh")}
    assert [s.path for s in tail_scripts(scripts, "/opt/x/sbin/daemon.sh")] == ["a/sbin/daemon.sh"]
    # the file name alone is not enough, nor a relative word
    assert tail_scripts(scripts, "/daemon.sh") == [] and tail_scripts(scripts, "sbin/d.sh") == []


def test_an_entry_point_that_execs_a_script_that_never_execs_is_followed(tmp_path: Path) -> None:
    entrypoint = "#!/bin/sh\nset -e\necho ready\nexec /srv/app/start.sh\n"
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": "FROM registry.example/jre:17\nWORKDIR /srv/app\nCOPY . /srv/app\n"
        'ENTRYPOINT ["/srv/app/entrypoint.sh"]\n',
        "entrypoint.sh": entrypoint,
        "start.sh": START,
    }
    (finding,) = klb406(tmp_path, files)
    assert finding.severity is Severity.WARNING and finding.line == 4
    assert "start.sh is PID 1" in finding.text
    assert "entrypoint.sh:4 execs /srv/app/start.sh" in finding.text
    assert "`exec java -jar /srv/app/app.jar`" in finding.text
    fixed = START.replace("java -jar", "exec java -jar")
    assert klb406(tmp_path / "fixed", dict(files, **{"start.sh": fixed})) == []


def test_scripts_that_exec_each_other_are_followed_a_bounded_number_of_hops(
    tmp_path: Path,
) -> None:
    files = {
        "deploy/manifest.yaml": web_deployment('command: [bash, -c, "/opt/acme/a.sh"]'),
        "image/opt/acme/a.sh": "#!/bin/sh\necho a\nexec /opt/acme/b.sh\n",
        "image/opt/acme/b.sh": "#!/bin/sh\necho b\nexec /opt/acme/a.sh\n",
    }
    assert klb406(tmp_path, files) == [], "past MAX_SCRIPT_HOPS nothing is known: no finding"
    # within the budget, the script that ends it all is PID 1
    ends = dict(files, **{"image/opt/acme/b.sh": "#!/bin/sh\necho b\n/opt/acme/server\n"})
    (finding,) = klb406(tmp_path / "ends", ends)
    assert "b.sh is PID 1" in finding.text and "a.sh:3 execs /opt/acme/b.sh" in finding.text
