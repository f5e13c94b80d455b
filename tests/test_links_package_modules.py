"""One image of a Python package whose containers each run one of its modules (`python -m
shop.orders.server`, `python shop/billing/server.py`, `python -m gunicorn shop.web.app`):
each runs that module and what it imports, not the whole package, when the image's name
names the package's folder (the command then runs from the folder above it)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.entry_points import entry_of
from k8slb.rules.sigterm_never_reaches_server import pid1

from tests.test_links import links

ORDERS = """\
from concurrent import futures

import grpc

from shop.orders import handlers


def serve():
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    handlers.register(server)
    server.add_insecure_port("[::]:7001")
    server.start()
    server.wait_for_termination()


if __name__ == "__main__":
    serve()
"""
BILLING = ORDERS.replace("shop.orders", "shop.billing").replace("7001", "7002")
WEB = """\
import os

import grpc
from flask import Flask

app = Flask(__name__)
application = app


@app.get("/orders")
def orders():
    with grpc.insecure_channel(os.environ["ORDERS_ADDR"]) as channel:
        return {"ok": channel is not None}
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: {replicas}
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: {name}
          image: registry.example/team/shop:2.1
          command: ["python3"]
          args: {args}
---
"""


def _tree() -> dict[str, str]:
    manifests = "".join(
        DEPLOYMENT.format(name=name, replicas=replicas, args=args)
        for name, replicas, args in [
            ("orders", 1, '["-m", "shop.orders.server"]'),
            ("billing", 3, '["shop/billing/server.py"]'),
            ("web", 2, '["-m", "gunicorn", "shop.web.app", "-b", "0.0.0.0:8000"]'),
        ]
    )
    return {
        "deploy/shop.yaml": manifests,
        "Dockerfile": 'FROM python:3.12-slim\nWORKDIR /srv\nCOPY . .\nCMD ["false"]\n',
        "shop/__init__.py": "",
        "shop/orders/__init__.py": "",
        "shop/orders/server.py": ORDERS,
        "shop/orders/handlers.py": "def register(server):\n    return server\n",
        "shop/billing/__init__.py": "",
        "shop/billing/server.py": BILLING,
        "shop/billing/handlers.py": "def register(server):\n    return server\n",
        "shop/web/__init__.py": "",
        "shop/web/app.py": WEB,
    }


def test_each_container_runs_the_module_its_command_names(tmp_path: Path) -> None:
    rows = {row["container"].rpartition(":")[2]: row for row in links(tmp_path, _tree())}
    assert rows["orders"]["code"] == "shop/orders/server.py"
    assert rows["billing"]["code"] == "shop/billing/server.py"
    assert rows["web"]["code"] == "shop/web/app.py"
    # the module, its package's __init__ files and what it imports: no other service's
    assert rows["orders"]["modules"] < 5 and rows["billing"]["modules"] < 5


@pytest.mark.parametrize(
    ("argv", "module"),
    [
        (["python3", "-m", "gunicorn", "shop.web.app", "-b", "0.0.0.0:8000"], "shop.web.app"),
        (["python", "-u", "-m", "uvicorn", "shop.api.main:app", "--port", "80"], "shop.api.main"),
        (["gunicorn", "shop.web.wsgi", "-w", "4"], "shop.web.wsgi"),
        (["gunicorn", "-w", "4", "shop.web.wsgi"], None),  # an option's value may be it
        (["python", "-m", "gunicorn", "-k", "gevent", "shop.web.wsgi:app"], "shop.web.wsgi"),
    ],
)
def test_an_app_server_run_as_a_module_serves_the_app_it_names(
    argv: list[str], module: str | None
) -> None:
    entry = entry_of(argv)
    assert (entry.module if entry is not None else None) == module


def test_python_running_an_app_server_leaves_that_server_as_pid1() -> None:
    """`python -m gunicorn` is gunicorn, whose arbiter handles SIGTERM, as `gunicorn` is."""
    assert pid1(["python3", "-m", "gunicorn", "shop.web.app"]) is None
    assert pid1(["gunicorn", "shop.web.app"]) is None
    found = pid1(["python3", "-m", "shop.orders.server"])
    assert found is not None and found.kind == "runtime"
