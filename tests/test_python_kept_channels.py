"""Python channels kept for the life of the process where they are not made plainly in
an attribute: an item of a map an object or the module holds, a name the function
declares `global`, and what a factory returns to such a place."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.code.facts import CodeFacts, EnvRef
from k8slb.languages.python.parse import analyse

from tests.helpers import lint_files


def facts(source: str) -> CodeFacts:
    return analyse("svc/clients.py", textwrap.dedent(source).encode())


@pytest.mark.parametrize(
    ("store", "long_lived"),
    [
        ("self._channels[name] = grpc.insecure_channel(addr)", True),
        ("self._pools['ocr'][name] = grpc.insecure_channel(addr)", True),
        ("_CHANNELS[name] = grpc.insecure_channel(addr)", True),
        ("_ANNOTATED[name] = grpc.insecure_channel(addr)", True),
        ("local = {}\n    local[name] = grpc.insecure_channel(addr)", False),
        # a local spelt as the module's map shadows it
        ("_CHANNELS = {}\n    _CHANNELS[name] = grpc.insecure_channel(addr)", False),
    ],
    ids=["attribute-map", "attribute-nested-map", "module-map", "annotated", "local", "shadow"],
)
def test_a_channel_stored_in_a_map_that_outlives_the_call_is_long_lived(
    store: str, long_lived: bool
) -> None:
    source = (
        "import grpc\n\n_CHANNELS = {}\n_ANNOTATED: dict[str, grpc.Channel] = {}\n\n\n"
        f"def connect(self, name, addr):\n    {store}\n"
    )
    [channel] = facts(source).channels
    assert channel.long_lived is long_lived
    place = store.split(" = ")[0] if long_lived else None
    assert channel.kept == (f"in `{place}`" if place else "")


def test_a_channel_assigned_to_a_global_is_long_lived() -> None:
    source = """\
        import grpc

        _channel = None


        def channel():
            global _channel
            if _channel is None:
                _channel = grpc.insecure_channel("ocr:50000")
            return _channel


        def once():
            _local = grpc.insecure_channel("ocr:50000")
            _local.close()
        """
    kept, once = facts(source).channels
    assert kept.long_lived and not once.long_lived


def test_a_factorys_channel_a_caller_keeps_in_a_map_is_long_lived() -> None:
    source = """\
        import os

        import grpc

        _CLIENTS = {}


        def make(addr):
            return grpc.insecure_channel(addr)


        def client(name):
            if name not in _CLIENTS:
                _CLIENTS[name] = make(os.environ["OCR_ADDR"])
            return _CLIENTS[name]


        def call(name):
            with make(os.environ["NER_ADDR"]) as channel:
                return channel
        """
    found = {(c.target, c.long_lived, c.kept) for c in facts(source).channels}
    assert found == {
        (EnvRef("OCR_ADDR", None), True, "by the caller at line 14, in `_CLIENTS[name]`"),
        (EnvRef("NER_ADDR", None), False, ""),
    }


MANIFESTS = """\
apiVersion: v1
kind: Service
metadata: {name: ocr, namespace: search}
spec:
  selector: {app: ocr}
  ports:
    - {name: grpc, port: 50000}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ocr, namespace: search}
spec:
  replicas: 3
  selector:
    matchLabels: {app: ocr}
  template:
    metadata:
      labels: {app: ocr}
    spec:
      containers:
        - name: ocr
          image: registry.example/ocr:1.0
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: worker, namespace: search}
spec:
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
        - name: worker
          image: registry.example/worker:1.0
          env:
            - {name: OCR_ADDR, value: "ocr.search.svc.cluster.local:50000"}
"""

CLIENT = """\
import os

import grpc

_CHANNELS = {}


def channel(name):
    if name not in _CHANNELS:
        _CHANNELS[name] = grpc.insecure_channel(os.environ["OCR_ADDR"])
    return _CHANNELS[name]
"""


def test_end_to_end_a_channel_a_module_map_keeps_is_reported(tmp_path: Path) -> None:
    files = {"k8s.yaml": MANIFESTS, "worker/clients.py": CLIENT}
    [finding] = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "to ClusterIP Service/search/ocr stays on one pod" in finding.message
    assert "the channel is kept in `_CHANNELS[name]`" in finding.detail
    assert (finding.path.rsplit("/", 1)[1], finding.line) == ("clients.py", 10)
    # a local map the function drops: a channel per call
    files["worker/clients.py"] = CLIENT.replace("_CHANNELS = {}\n", "").replace(
        "def channel(name):\n", "def channel(name):\n    _CHANNELS = {}\n"
    )
    assert lint_files(tmp_path / "local", files, ["KLB102"]).findings == []
