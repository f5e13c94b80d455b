"""KLB406 on containers that run once: a shell script whose commands all end by
themselves, or a bare Pod that is never restarted on success and serves nothing, has no
server for SIGTERM to reach; a long-running command under a shell keeps the finding."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding

from .helpers import lint_files


def pod(command: str, restart: str = "", extra: str = "") -> str:
    policy = f"  restartPolicy: {restart}\n" if restart else ""
    return (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: task\nspec:\n"
        + policy
        + "  containers:\n    - name: task\n      image: registry.example/toolbox:2\n"
        + f"      command: {command}\n"
        + extra
    )


def klb406(tmp_path: Path, manifest: str) -> list[Finding]:
    return lint_files(tmp_path, {"pod.yaml": manifest}, ["KLB406"]).findings


@pytest.mark.parametrize(
    "script",
    [
        "echo ready; exit 3",
        "chown -R 1001:1001 /data && chmod 0750 /data && echo 'owner set'",
        "echo begin; base64 /dev/urandom | head -c 5000; echo end",
        "if [ -f /state/seen ]; then exit 0; fi; touch /state/seen; exit 2",
        "mkdir -p /out && cp /seed/* /out/ && ls -l /out",
    ],
    ids=["echo-exit", "chown-chain", "piped-into-head", "if-test", "copy"],
)
def test_a_script_of_commands_that_end_is_not_reported(tmp_path: Path, script: str) -> None:
    # restartPolicy Always (the default): only the script tells that it ends
    assert klb406(tmp_path, pod(f'["/bin/sh", "-c", "{script}"]')) == []


@pytest.mark.parametrize(
    "script",
    [
        "echo starting; python /srv/app.py",
        "sleep infinity",
        "while true; do date; sleep 5; done",
        "touch /tmp/up; nc -lk -p 8080 -e echo hello",
        "base64 /dev/urandom > /dev/null",
        "echo go; cat /dev/zero | gzip > /dev/null",
        "cp /seed/a /out/a & sleep 3600",
    ],
    ids=["server", "sleep", "loop", "listener", "endless-reader", "endless-pipe", "background"],
)
def test_a_script_that_runs_on_keeps_the_finding(tmp_path: Path, script: str) -> None:
    assert len(klb406(tmp_path, pod(f'["/bin/sh", "-c", "{script}"]'))) == 1


@pytest.mark.parametrize("restart", ["Never", "OnFailure"])
def test_a_bare_pod_that_is_not_restarted_on_success_and_serves_nothing_is_a_task(
    tmp_path: Path, restart: str
) -> None:
    command = '["sh", "-c", "python /jobs/rebuild_index.py | tee /logs/run.txt"]'
    assert klb406(tmp_path, pod(command, restart)) == []
    assert len(klb406(tmp_path, pod(command))) == 1  # restarted whenever it ends: it runs on


def test_a_bare_pod_with_a_port_or_a_probe_is_still_a_server(tmp_path: Path) -> None:
    command = '["sh", "-c", "python /srv/app.py | tee /logs/run.txt"]'
    port = "      ports:\n        - containerPort: 8080\n"
    probe = "      readinessProbe:\n        tcpSocket:\n          port: 8080\n"
    assert len(klb406(tmp_path, pod(command, "Never", port))) == 1
    assert len(klb406(tmp_path, pod(command, "OnFailure", probe))) == 1


@pytest.mark.parametrize(
    "script",
    ["while true; do date; sleep 10; done", "echo up; sleep 3600", "tail -f /dev/null"],
    ids=["loop", "sleep", "tail"],
)
def test_a_bare_task_pod_whose_shell_runs_on_keeps_the_finding(tmp_path: Path, script: str) -> None:
    assert len(klb406(tmp_path, pod(f'["sh", "-c", "{script}"]', "Never"))) == 1
