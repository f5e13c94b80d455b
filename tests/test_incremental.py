"""A judgement after an edit (incremental.py, what `k8slb lsp` makes on each change) says
exactly what a fresh run of the edited workspace says: the same findings in the same
order, the same suppressed findings, errors, objects and links, whichever files it judged
again.

The edits are those that move findings between files: a Service made headless, removed
and added, a client's address changed, its env var removed and added, a client channel
removed, the server code a Service selects changed, lines moved above the entry an
address comes from, a manifest and a module that stop parsing; in seeded random
sequences (a failure names its seed and steps, and replays)."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest
from k8slb import api, engine, incremental
from k8slb.cache import ParseMemo
from k8slb.core.results import RunResult

from .helpers import FIXTURES

DEMO = FIXTURES / "demo" / "bad"
Edit = Callable[[bytes], bytes]

SECOND_SERVICE = b"""---
apiVersion: v1
kind: Service
metadata:
  name: backend-v2
  namespace: shop
spec:
  selector:
    app: backend
  ports:
    - name: grpc
      port: 50051
      targetPort: grpc
"""


def swap(old: bytes, new: bytes) -> Edit:
    def edit(text: bytes) -> bytes:
        return text.replace(old, new)

    return edit


def without_service(text: bytes) -> bytes:
    """backend.yaml with its Service document left out."""
    documents = text.split(b"\n---\n")
    return b"\n---\n".join(d for d in documents if b"\nkind: Service\n" not in d)


# (file of the demo, edit): each applied to the file's current text
EDITS: dict[str, tuple[str, Edit]] = {
    "Service headless": (
        "backend.yaml",
        swap(
            b"spec:\n  selector:\n    app: backend\n",
            b"spec:\n  clusterIP: None\n  selector:\n    app: backend\n",
        ),
    ),
    "Service removed": ("backend.yaml", without_service),
    "Service added": ("backend.yaml", lambda text: text + SECOND_SERVICE),
    "manifest stops parsing": ("backend.yaml", lambda text: text + b"\n  bad: [\n"),
    "client dials the added Service": (
        "frontend.yaml",
        swap(
            b'"backend.shop.svc.cluster.local:50051"', b'"backend-v2.shop.svc.cluster.local:50051"'
        ),
    ),
    "env var removed": (
        "frontend.yaml",
        swap(
            b"            - name: BACKEND_ADDR\n"
            b'              value: "backend.shop.svc.cluster.local:50051"\n',
            b"",
        ),
    ),
    "env var added": (
        "checkout.yaml",
        swap(
            b"          env:\n",
            b"          env:\n            - name: EXTRA_ADDR\n"
            b'              value: "inventory.shop:7000"\n',
        ),
    ),
    "lines moved above an env entry": ("frontend.yaml", lambda text: b"# moved\n" + text),
    "client channel removed": (
        "client.py",
        swap(b"channel = grpc.insecure_channel(BACKEND_ADDR)\n", b"channel = None\n"),
    ),
    "module stops parsing": ("client.py", lambda text: text + b"\ndef broken(:\n"),
    "server code changed": ("inventory/server.py", lambda text: b"# moved\n" + text),
    "Go client's default": ("checkout/main.go", swap(b'"backend:50051"', b'"inventory:7000"')),
}


def outcome(result: RunResult) -> tuple[object, ...]:
    """What a judgement says (suppressed findings in any order: no report lists them in
    the order the rules made them)."""
    return (
        result.findings,
        sorted(repr(pair) for pair in result.suppressed),
        result.errors,
        result.warnings,
        result.objects,
        result.files,
        result.paths,
        result.links,
    )


class Workspace:
    """The demo's files, edited in memory, judged after each edit as the editor's server
    judges them, and afresh."""

    def __init__(self, root: Path) -> None:
        self.run = api.plan([str(root)])
        self.sources = self.run.found.sources
        self.root = root
        self.original = {s.path: s.read() for s in self.sources if s.unread is None}
        self.contents = dict(self.original)
        self.memo = ParseMemo()
        self.judgement: incremental.Judgement | None = None
        self.by_parts = 0  # judgements made after an edit, of its files alone

    def edit(self, name: str, edit: Edit | None) -> None:
        path = str(self.root / name)
        self.contents[path] = self.original[path] if edit is None else edit(self.contents[path])

    def judge(self) -> RunResult:
        judged = incremental.judge(
            self.sources, self.run.settings, self.contents, memo=self.memo, before=self.judgement
        )
        assert isinstance(judged, incremental.Judgement)
        self.by_parts += not judged.whole
        self.judgement = judged
        return judged.result

    def fresh(self) -> RunResult:
        return engine.run(self.sources, self.run.settings, dict(self.contents), memo=ParseMemo())


@pytest.fixture
def demo(tmp_path: Path) -> Workspace:
    root = tmp_path / "demo"
    for path in DEMO.rglob("*"):
        if path.is_file():
            (root / path.relative_to(DEMO)).parent.mkdir(parents=True, exist_ok=True)
            (root / path.relative_to(DEMO)).write_bytes(path.read_bytes())
    (root / ".git").mkdir()
    return Workspace(root)


@pytest.mark.parametrize("seed", range(6))
def test_a_judgement_after_any_edits_says_what_a_fresh_run_says(demo: Workspace, seed: int) -> None:
    chooser = random.Random(seed)
    assert outcome(demo.judge()) == outcome(demo.fresh())
    steps: list[str] = []
    for _ in range(10):
        if chooser.random() < 0.25:  # a file back as it was (an undo)
            name = chooser.choice(sorted({name for name, _ in EDITS.values()}))
            steps.append(f"{name} as it was")
            demo.edit(name, None)
        else:
            step = chooser.choice(sorted(EDITS))
            steps.append(step)
            demo.edit(*EDITS[step])
        assert outcome(demo.judge()) == outcome(demo.fresh()), f"seed {seed}, steps: {steps}"
    assert demo.by_parts > 0, "some judgements were made of the edited files' part alone"


@pytest.mark.parametrize("step", sorted(EDITS))
def test_each_edit_alone_and_its_undo_say_what_a_fresh_run_says(demo: Workspace, step: str) -> None:
    demo.judge()
    name, edit = EDITS[step]
    demo.edit(name, edit)
    assert outcome(demo.judge()) == outcome(demo.fresh()), step
    demo.edit(name, None)
    assert outcome(demo.judge()) == outcome(demo.fresh()), f"{step}, undone"
