"""KLB111 (Node.js): an HTTP request (axios, fetch, got, node-fetch, http.request) whose URL
is a template or a `+` chain that begins with an environment variable or a constant and
goes on with a path k8slb cannot follow (`${process.env.STOCK_URL}/items/${id}`) is read
up to its path: the scheme, host and port the variable (as the workload sets it) or the
constant gives. A port the Service does not expose is an error; a variable that holds no
URL, or one no workload sets, is no address."""

from __future__ import annotations

from pathlib import Path

import pytest

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
