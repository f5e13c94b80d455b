"""KLB406 for a script as PID 1 that starts the server in a function it calls (`serve()
{ ...; python server.py; }`, called from a branch on its argument): the shell stays PID 1
(no exec, no trap), and the fix names the function's last command."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

DOCKERFILE = (
    "FROM python:3.12-slim\nWORKDIR /srv\nCOPY . /srv\nCOPY ./start-prod.sh /srv/start.sh\n"
    'ENTRYPOINT ["./start.sh"]\nCMD ["serve"]\n'
)
SCRIPT = (
    "#!/bin/bash\nset -eu\n\nmode=${1}\n\nprepare() {\n  python manage.py collectstatic\n}\n\n"
    "serve() {\n  prepare\n  python server.py --port 8080\n}\n\n"
    'if [[ "${mode}" == "serve" ]]; then\n  echo "serving"\n  serve\nelse\n'
    '  echo "unknown mode ${mode}"\n  exit 1\nfi\n'
)
SERVER = (
    "from http.server import BaseHTTPRequestHandler, HTTPServer\n\n"
    'HTTPServer(("", 8080), BaseHTTPRequestHandler).serve_forever()\n'
)


def tree(script: str = SCRIPT) -> dict[str, str]:
    return {
        "k8s/web.yaml": web_deployment(),
        "web/Dockerfile": DOCKERFILE,
        "web/start-prod.sh": script,
        "web/server.py": SERVER,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_a_server_started_in_a_function_leaves_bash_pid1(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree())
    assert finding.severity is Severity.WARNING
    assert "start-prod.sh is PID 1" in finding.text
    assert "`exec python server.py --port 8080`" in finding.text


def test_exec_in_the_function_hands_pid1_over(tmp_path: Path) -> None:
    handed = SCRIPT.replace("  python server.py", "  exec python server.py")
    files = tree(handed)
    files["web/server.py"] = "import signal\nimport sys\n\n" + (
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))\n" + SERVER
    )
    assert klb406(tmp_path, files) == []
