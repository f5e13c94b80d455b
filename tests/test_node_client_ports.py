"""KLB111 (Node.js): an HTTP request (axios, fetch, got, node-fetch, http.request) whose URL
is a template or a `+` chain that begins with an environment variable or a constant and
goes on with a path k8slb cannot follow (`${process.env.STOCK_URL}/items/${id}`) is read
up to its path: the scheme, host and port the variable (as the workload sets it) or the
constant gives. A port the Service does not expose is an error; a variable that holds no
URL, or one no workload sets, is no address."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding

from .helpers import lint_files

PACKAGE = '{"name": "checkout", "version": "1.0.0", "main": "index.js"}\n'

INDEX = """\
const express = require('express');
const axios = require('axios');
const got = require('got');
const http = require('http');

const LEDGER = 'http://ledger';
const app = express();

app.post('/checkout/:id', async (req, res) => {
  const reply = await CALL;
  res.json(reply.data);
});

app.listen(8080);
"""

DOCKERFILE = """\
FROM node:20-alpine
WORKDIR /app
COPY . .
CMD ["node", "index.js"]
"""

MANIFESTS = """\
apiVersion: v1
kind: Service
metadata:
  name: stock
spec:
  selector:
    app: stock
  ports:
    - name: http
      port: 80
      targetPort: 7000
---
apiVersion: v1
kind: Service
metadata:
  name: ledger
spec:
  selector:
    app: ledger
  ports:
    - name: http
      port: 80
      targetPort: 7000
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: checkout
spec:
  selector:
    matchLabels:
      app: checkout
  template:
    metadata:
      labels:
        app: checkout
    spec:
      containers:
        - name: checkout
          image: registry.example.com/shop/checkout:1.4.2
          env:
            - name: STOCK_URL
              value: "VALUE"
"""


def _lint(tmp_path: Path, call: str, value: str = "http://stock:7000") -> list[tuple[int, str]]:
    found = lint_files(
        tmp_path,
        {
            "checkout/package.json": PACKAGE,
            "checkout/index.js": INDEX.replace("CALL", call),
            "checkout/Dockerfile": DOCKERFILE,
            "deploy/k8s.yaml": MANIFESTS.replace("VALUE", value),
        },
        ["KLB111"],
    )
    return [(f.line, f.severity.name.lower()) for f in found.findings]


@pytest.mark.parametrize(
    "call",
    [
        "axios.post(`${process.env.STOCK_URL}/items/${req.params.id}/reserve`, {})",
        "axios.get(process.env.STOCK_URL + '/items/' + req.params.id)",
        "fetch(`${process.env.STOCK_URL}/items/${req.params.id}`)",
        "got.post(`${process.env.STOCK_URL}/items/${req.params.id}`)",
        "got(`${process.env.STOCK_URL || 'http://localhost:7000'}/items/${req.params.id}`)",
        "http.get(`${process.env.STOCK_URL}/items/${req.params.id}`)",
    ],
)
def test_a_request_to_an_environment_url_and_a_path(tmp_path: Path, call: str) -> None:
    assert _lint(tmp_path, call) == [(10, "error")]


def test_a_constant_and_a_path(tmp_path: Path) -> None:
    call = "axios.put(`${LEDGER}:7000/entries/${req.params.id}`)"
    assert _lint(tmp_path, call) == [(10, "error")]
    assert _lint(tmp_path, "axios.put(LEDGER + '/entries/' + req.params.id)") == []


def test_the_port_the_service_exposes_is_fine(tmp_path: Path) -> None:
    call = "axios.post(`${process.env.STOCK_URL}/items/${req.params.id}/reserve`, {})"
    assert _lint(tmp_path, call, "http://stock") == []
    assert _lint(tmp_path, call, "http://stock:80") == []


def test_a_variable_that_holds_a_host_alone_is_no_url(tmp_path: Path) -> None:
    call = "axios.post(`${process.env.STOCK_URL}:7000/items/${req.params.id}`, {})"
    assert _lint(tmp_path, call, "stock") == []


def test_a_variable_no_workload_sets_is_left_alone(tmp_path: Path) -> None:
    call = "axios.post(`${process.env.OTHER_URL}/items/${req.params.id}`, {})"
    assert _lint(tmp_path, call) == []


def test_a_url_written_in_a_log_line_is_no_request(tmp_path: Path) -> None:
    call = "console.log(`${process.env.STOCK_URL}/items/${req.params.id}`)"
    assert _lint(tmp_path, call) == []


# -- one wrong address, one finding: where it is written -----------------------------------

DEFAULTED = """\
const express = require('express');
const axios = require('axios');

const STOCK = 'STOCK_BASE';
const app = express();

app.get('/ledger', async (req, res) => {
  const base =
    process.env.LEDGER_URL || 'http://ledger:7000';
  const reply = await fetch(`${base}/entries`);
  const items = await CALL;
  res.json({ ok: reply.ok, items: items.data });
});

app.listen(8080);
"""
NO_CALL = "Promise.resolve({ data: [] })"


def _lint_defaulted(
    tmp_path: Path, call: str = NO_CALL, stock: str = "http://stock", manifests: str = MANIFESTS
) -> list[Finding]:
    code = DEFAULTED.replace("CALL", call).replace("STOCK_BASE", stock)
    return lint_files(
        tmp_path,
        {
            "checkout/package.json": PACKAGE,
            "checkout/index.js": code,
            "checkout/Dockerfile": DOCKERFILE,
            "deploy/k8s.yaml": manifests.replace("VALUE", "http://stock"),
        },
        ["KLB111"],
    ).findings


def test_a_default_written_as_a_url_is_reported_where_it_is_written_not_at_each_use(
    tmp_path: Path,
) -> None:
    """`process.env.LEDGER_URL || 'http://ledger:7000'` and no workload sets LEDGER_URL:
    the request dials the default, whose port the Service does not expose. One problem,
    one finding, at the line to change: the default's (9), not the request's (10)."""
    assert [f.line for f in _lint_defaulted(tmp_path)] == [9]


@pytest.mark.parametrize(
    "call", ["axios.get(`${STOCK}/items/${req.query.id}`)", "axios.get(STOCK)"]
)
def test_a_constant_url_a_request_carries_is_reported_where_it_is_written(
    tmp_path: Path, call: str
) -> None:
    """`const STOCK = 'http://stock:7000'` (4) used whole by a request, with a path or
    alone: the constant's line is the one to change, not the request's (11)."""
    found = _lint_defaulted(tmp_path, call, stock="http://stock:7000")
    assert sorted(f.line for f in found) == [4, 9]


def test_what_a_use_adds_to_a_constant_is_judged_at_the_use(tmp_path: Path) -> None:
    """`${STOCK}:7000/items` writes the port at the request: the request is the place."""
    found = _lint_defaulted(tmp_path, "axios.get(`${STOCK}:7000/items`)")
    assert sorted(f.line for f in found) == [9, 11]


def test_a_variable_a_workload_sets_is_judged_at_each_request(tmp_path: Path) -> None:
    """Where the workload sets the variable, the request dials the workload's value: its
    own problem, reported at the request (the manifest's line related), besides the
    default's."""
    manifests = MANIFESTS.replace("STOCK_URL", "LEDGER_URL").replace(
        '"VALUE"', '"http://ledger:7001"'
    )
    found = _lint_defaulted(tmp_path, manifests=manifests)
    assert sorted(f.line for f in found) == [9, 10]
    (request,) = [f for f in found if f.line == 10]
    assert "LEDGER_URL as Deployment" in request.text
