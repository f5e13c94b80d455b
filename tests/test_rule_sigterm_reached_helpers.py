"""KLB406 for Python as PID 1 whose SIGTERM handler is registered by a helper of another
project of the tree (a workspace's shared package, installed beside the program) that
the entry point calls, or by a server the code runs that installs one itself (uvicorn's
`Server.run()`/`serve()`, hypercorn's `serve()`, gunicorn's application `run()`); and
the facts the Python reader keeps for it: each top-level function's calls, and those
that register a handler (code/reach.py, languages/python/parse_calls.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.reach import reached_signal
from k8slb.core.findings import Finding
from k8slb.languages.python.parse import parse
from k8slb.reading.console_scripts import console_scripts
from k8slb.rulekit.examples import web_deployment

from .helpers import lint_files

SHOP_PYPROJECT = """\
[project]
name = "shop"
version = "1.0.0"

[project.scripts]
shop-worker = "shop.worker:main"
shop-exporter = "shop.exporter:main"
shop-api = "shop.api:run"
"""
COMMON_PYPROJECT = '[project]\nname = "acme-common"\nversion = "1.0.0"\n'
# the shared package: one helper registers the handler, the other starts a server only
LIFECYCLE = """\
import asyncio
import signal


async def run_until_exit(finalizers):
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    for finalizer in finalizers:
        await finalizer()


async def start_metrics():
    from prometheus_client import start_http_server

    start_http_server(9090)
"""
WORKER = """\
import asyncio

from acme_common.lifecycle import run_until_exit, start_metrics


async def consume():
    await start_metrics()
    await run_until_exit([])


def main():
    asyncio.run(consume())
"""
# it imports the module of the handler's helper, and calls another function of it
EXPORTER = """\
import asyncio

from acme_common.lifecycle import start_metrics


async def export():
    await start_metrics()
    while True:
        await asyncio.sleep(60)


def main():
    asyncio.run(export())
"""
API = """\
from fastapi import FastAPI

from acme_common.web import serve

app = FastAPI()


def run():
    serve(app)
"""
# a shared helper that runs uvicorn's Server, as each way below writes it
WEB_RUN = """\
import uvicorn


def serve(app):
    server = uvicorn.Server(uvicorn.Config(app, host="0.0.0.0", port=8080))
    server.run()
"""
WEB_CAPTURE = """\
import asyncio

from uvicorn.config import Config
from uvicorn.server import Server


async def forever(server: Server):
    await server.startup()
    with server.capture_signals():
        await server.main_loop()
    await server.shutdown()


def serve(app):
    asyncio.run(forever(Server(Config(app))))
"""
WEB_STARTUP_ONLY = """\
import asyncio

from uvicorn.config import Config
from uvicorn.server import Server


async def started(server: Server):
    await server.startup()
    while True:
        await asyncio.sleep(1)


def serve(app):
    asyncio.run(started(Server(Config(app))))
"""
WEB_HYPERCORN = """\
import asyncio

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config


def serve(app):
    asyncio.run(hypercorn_serve(app, Config()))
"""
WEB_HYPERCORN_TRIGGER = """\
import asyncio

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config


def serve(app):
    never = asyncio.Event()
    asyncio.run(hypercorn_serve(app, Config(), shutdown_trigger=never.wait))
"""
WEB_GUNICORN = """\
from gunicorn.app.base import BaseApplication


class Embedded(BaseApplication):
    def __init__(self, app):
        self.application = app
        super().__init__()

    def load_config(self):
        self.cfg.set("bind", "0.0.0.0:8080")

    def load(self):
        return self.application


def serve(app):
    Embedded(app).run()
"""
DOCKERFILE = "FROM python:3.12-slim\nWORKDIR /srv\nCOPY . .\nRUN pip install ./common ./shop\n"


def tree(command: str, web: str = WEB_RUN) -> dict[str, str]:
    return {
        "deploy/app.yaml": web_deployment(f"command: [{command}]"),
        "Dockerfile": DOCKERFILE,
        "shop/pyproject.toml": SHOP_PYPROJECT,
        "shop/src/shop/__init__.py": "",
        "shop/src/shop/worker.py": WORKER,
        "shop/src/shop/exporter.py": EXPORTER,
        "shop/src/shop/api.py": API,
        "common/pyproject.toml": COMMON_PYPROJECT,
        "common/src/acme_common/__init__.py": "",
        "common/src/acme_common/lifecycle.py": LIFECYCLE,
        "common/src/acme_common/web.py": web,
    }


def klb406(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB406"]).findings


def test_a_handler_a_shared_package_registers_in_a_helper_the_entry_calls_counts(
    tmp_path: Path,
) -> None:
    assert klb406(tmp_path, tree("shop-worker")) == []


def test_a_helper_module_imported_for_another_function_lends_no_handler(tmp_path: Path) -> None:
    (finding,) = klb406(tmp_path, tree("shop-exporter"))
    assert "shop-exporter (Python) is PID 1" in finding.text
    assert "no SIGTERM handler" in finding.text


@pytest.mark.parametrize(
    "web", [WEB_RUN, WEB_CAPTURE, WEB_HYPERCORN, WEB_GUNICORN], ids=lambda w: w[:40]
)
def test_a_server_a_shared_helper_runs_that_installs_a_handler_counts(
    tmp_path: Path, web: str
) -> None:
    assert klb406(tmp_path, tree("shop-api", web)) == []


@pytest.mark.parametrize("web", [WEB_STARTUP_ONLY, WEB_HYPERCORN_TRIGGER])
def test_a_server_started_with_no_handler_of_its_own_is_reported(tmp_path: Path, web: str) -> None:
    (finding,) = klb406(tmp_path, tree("shop-api", web))
    assert "shop-api (Python) is PID 1" in finding.text


def test_a_console_script_keeps_the_function_it_calls() -> None:
    (script,) = console_scripts("pyproject.toml", '[project.scripts]\nacme = "acme.cli:main"\n')
    assert (script.module, script.function) == ("acme.cli", "main")


MODULE = """\
import asyncio
import signal

import helpers
from .local import step
from acme.run import run_until_exit as wait_for_exit


def handler_here():
    signal.signal(signal.SIGTERM, lambda *_: None)


def main():
    def inner():
        helpers.start()

    inner()
    step()
    asyncio.run(wait_for_exit([]))
    handler_here()


class Service:
    def run(self):
        step()


if __name__ == "__main__":
    main()
"""


def test_the_reader_keeps_each_top_level_functions_calls() -> None:
    facts = parse("pkg/app.py", MODULE.encode())
    # a nested function's calls are its function's; a method's, no function's
    assert set(facts.function_calls["main"]) == {
        "helpers:start",
        ".local:step",
        "asyncio:run",
        "acme.run:run_until_exit",
        "handler_here",
    }
    assert "Service.run" not in facts.function_calls and "" not in facts.function_calls
    assert facts.function_calls["__main__"] == ("main",)
    assert facts.signal_functions == frozenset({"handler_here"})


def test_a_uvicorn_server_taken_apart_from_what_a_factory_is_annotated_to_return() -> None:
    code = """\
import uvicorn


def make(app) -> tuple[object, uvicorn.Server]:
    return app, uvicorn.Server(uvicorn.Config(app))


def run(app):
    _, server = make(app)
    server.run()


def started(app):
    _, server = make(app)
    server.startup()
"""
    facts = parse("app.py", code.encode())
    assert [loc.line for loc in facts.signal_servers] == [10]
    assert facts.signal_functions == frozenset({"run"})


def test_run_of_something_other_than_a_server_is_no_signal_server() -> None:
    code = "import threading\n\nthread = threading.Thread(target=print)\nthread.run()\n"
    assert parse("app.py", b"import uvicorn\n" + code.encode()).signal_servers == []


def test_the_walk_stops_at_its_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import k8slb.code.reach as reach

    chain = {
        f"m{i}.py": parse(f"m{i}.py", f"from m{i + 1} import f\n\ndef f():\n    f()\n".encode())
        for i in range(5)
    }
    chain["m5.py"] = parse(
        "m5.py", b"import signal\n\ndef f():\n    signal.signal(signal.SIGTERM, print)\n"
    )
    for facts in chain.values():
        facts.project = "."
    assert reached_signal(chain, "m0.py", ["f"]) == "m5.py: f"
    monkeypatch.setattr(reach, "MAX_REACHED", 3)
    assert reached_signal(chain, "m0.py", ["f"]) is None
