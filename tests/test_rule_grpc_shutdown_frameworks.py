"""KLB403 on a grpc.aio server awaited on the event loop of an ASGI server that handles
SIGTERM itself (uvicorn runs the application's shutdown and ends the loop): the server is
cancelled, not drained, and the fix is a graceful stop in the application's code, never a
`signal.signal` handler that would replace the framework's."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: .\n"
# An HTTP application whose startup runs the gRPC server as a task, cancelled at shutdown.
APP = """\
import asyncio
from contextlib import asynccontextmanager

from fastapi import FastAPI

from shop.rpc import serve


@asynccontextmanager
async def lifespan(app):
    task = asyncio.create_task(serve())
    yield
    task.cancel()


app = FastAPI(lifespan=lifespan)
"""
RPC = """\
import grpc


async def serve():
    server = grpc.aio.server()
    server.add_insecure_port("[::]:50051")
    await server.start()
{wait}
"""
WAITS = "    await server.wait_for_termination()\n"
# cancelled, the wait raises CancelledError: the server is stopped with a grace there
DRAINS = (
    "    try:\n        await server.wait_for_termination()\n"
    "    except asyncio.CancelledError:\n        await server.stop(25)\n        raise\n"
)


def klb403(tmp_path: Path, cmd: str, wait: str = WAITS) -> list[Finding]:
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": f"FROM python:3.12\nWORKDIR /srv\nCOPY . /srv\nCMD {cmd}\n",
        "shop/__init__.py": "",
        "shop/main.py": APP,
        "shop/rpc.py": ("import asyncio\n" if "asyncio" in wait else "") + RPC.format(wait=wait),
    }
    return lint_files(tmp_path, files, ["KLB403"]).findings


@pytest.mark.parametrize(
    ("cmd", "owner"),
    [
        ('["uvicorn", "shop.main:app", "--port", "8080"]', "uvicorn"),
        (
            '["gunicorn", "-k", "uvicorn.workers.UvicornWorker", "shop.main:app"]',
            "gunicorn's uvicorn workers",
        ),
    ],
)
def test_a_server_cancelled_by_the_framework_that_owns_sigterm_asks_for_a_graceful_stop(
    tmp_path: Path, cmd: str, owner: str
) -> None:
    (finding,) = klb403(tmp_path, cmd)
    assert finding.severity is Severity.WARNING
    assert finding.message.startswith(
        f"gRPC server 'server' awaits wait_for_termination() on the event loop of {owner}, "
        "which handles SIGTERM"
    )
    assert "ignores until SIGKILL" not in finding.text
    assert "await server.stop(25) before the task ends" in finding.text
    # no signal.signal edit: it would replace the framework's own handler
    assert finding.edits == () and not finding.fix.available


def test_a_server_stopped_with_a_grace_when_cancelled_is_drained(tmp_path: Path) -> None:
    assert klb403(tmp_path, '["uvicorn", "shop.main:app"]', DRAINS) == []


def test_a_server_run_with_no_framework_that_owns_sigterm_keeps_the_handler_fix(
    tmp_path: Path,
) -> None:
    # python runs the module itself: nothing handles SIGTERM, the usual finding and edit
    main = "import asyncio\n\nfrom shop.rpc import serve\n\nasyncio.run(serve())\n"
    files = {
        "manifest.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD,
        "Dockerfile": "FROM python:3.12\nWORKDIR /srv\nCOPY . /srv\n"
        'CMD ["python", "-m", "shop.run"]\n',
        "shop/__init__.py": "",
        "shop/run.py": main,
        "shop/rpc.py": RPC.format(wait=WAITS),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB403"]).findings
    assert "no SIGTERM handler" in finding.message and finding.edits != ()
