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

import datetime
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from k8slb.core.results import RunResult
from k8slb.interface import api
from k8slb.run import engine, incremental
from k8slb.run.cache import ParseMemo

from .helpers import FIXTURES, SHARED

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
DEMO_EDITS: dict[str, tuple[str, Edit]] = {
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


def ring_manifest(name: str, upstream: str) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}}}
    spec:
      containers:
        - name: server
          image: registry.example/shop/{name}:1.0
          ports:
            - name: grpc
              containerPort: 50051
          env:
            - name: UPSTREAM_ADDR
              value: "{upstream}.shop.svc.cluster.local:50051"
---
apiVersion: v1
kind: Service
metadata:
  name: {name}
  namespace: shop
spec:
  selector: {{app: {name}}}
  ports:
    - name: grpc
      port: 50051
      targetPort: grpc
"""


RING_SERVER = """\
import os
from concurrent import futures

import grpc

upstream = grpc.insecure_channel(os.environ["UPSTREAM_ADDR"])

server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
server.add_insecure_port("[::]:50051")
server.start()
server.wait_for_termination()
"""

# Three services in a ring, each in its folder, each dialling the next by the address its
# Deployment's env gives (the code names no Service), and a tool no container runs that
# reads the same variable (the nearest workloads' env gives its address).
RING = {
    **{
        f"{name}/{file}": text
        for name, upstream in (("alpha", "beta"), ("beta", "gamma"), ("gamma", "alpha"))
        for file, text in (
            ("k8s.yaml", ring_manifest(name, upstream)),
            ("main.py", RING_SERVER),
            ("Dockerfile", 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/main.py"]\n'),
        )
    },
    # a module of alpha's that handles SIGTERM, in its program once main.py imports it
    "alpha/helper.py": (
        "import signal\n\n\ndef on_term(*_):\n    raise SystemExit(0)\n\n\n"
        "signal.signal(signal.SIGTERM, on_term)\n"
    ),
    "tools/probe.py": (
        'import os\n\nimport grpc\n\nprobe = grpc.insecure_channel(os.environ["UPSTREAM_ADDR"])\n'
    ),
}

MESHED_NAMESPACE = b"""---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels: {istio-injection: enabled}
"""

RING_EDITS: dict[str, tuple[str, Edit]] = {
    "beta headless": (
        "beta/k8s.yaml",
        swap(
            b"spec:\n  selector: {app: beta}", b"spec:\n  clusterIP: None\n  selector: {app: beta}"
        ),
    ),
    "beta's Service removed": ("beta/k8s.yaml", lambda text: text.split(b"\n---\n")[0] + b"\n"),
    "beta's pods relabelled": (
        "beta/k8s.yaml",
        swap(b"labels: {app: beta}", b"labels: {app: other}"),
    ),
    "beta's server caps connection age": (
        "beta/main.py",
        swap(
            b"max_workers=4))",
            b'max_workers=4), options=[("grpc.max_connection_age_ms", 60000)])',
        ),
    ),
    "alpha dials gamma": ("alpha/k8s.yaml", swap(b'"beta.shop', b'"gamma.shop')),
    "alpha's env var renamed": (
        "alpha/k8s.yaml",
        swap(b"name: UPSTREAM_ADDR", b"name: OTHER_ADDR"),
    ),
    "lines moved above alpha's env": ("alpha/k8s.yaml", lambda text: b"# moved\n" + text),
    "alpha imports its helper": (
        "alpha/main.py",
        swap(b"import grpc\n", b"import grpc\nimport helper\n"),
    ),
    "alpha's code reads another variable": (
        "alpha/main.py",
        swap(b'"UPSTREAM_ADDR"', b'"OTHER_ADDR"'),
    ),
    "gamma's code stops parsing": ("gamma/main.py", lambda text: text + b"\ndef broken(:\n"),
    "gamma's manifest stops parsing": ("gamma/k8s.yaml", lambda text: text + b"\n  bad: [\n"),
    # a Namespace's labels mesh every workload in it: judged whole
    "the namespace meshed": ("gamma/k8s.yaml", lambda text: text + MESHED_NAMESPACE),
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
    """A tree's files, edited in memory, judged after each edit as the editor's server
    judges them, and afresh."""

    def __init__(self, root: Path, moved: dict[str, str]) -> None:
        self.moved = moved  # the demo's file -> where this layout keeps it
        self.run = api.plan([str(root)])
        self.sources = self.run.found.sources
        self.root = root
        self.original = {s.path: s.read() for s in self.sources if s.unread is None}
        self.contents = dict(self.original)
        self.memo = ParseMemo()
        self.judgement: incremental.Judgement | None = None
        self.by_parts = 0  # judgements made after an edit, of its files alone

    def edit(self, name: str, edit: Edit | None) -> None:
        path = str(self.root / self.moved.get(name, name))
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


# The demo as a monorepo keeps it: each service's manifests beside its code, in its own
# folder (no file then shares a folder with the files it is related to by names alone).
FOLDERS = {
    "backend.yaml": "backend/k8s.yaml",
    "server.py": "backend/server.py",
    "frontend.yaml": "frontend/k8s.yaml",
    "client.py": "frontend/client.py",
    "inventory.yaml": "inventory/k8s.yaml",
    "checkout.yaml": "checkout/k8s.yaml",
}


def demo_files(moved: dict[str, str]) -> dict[str, bytes]:
    return {
        moved.get(name, name): path.read_bytes()
        for path in DEMO.rglob("*")
        if path.is_file() and (name := path.relative_to(DEMO).as_posix())
    }


# tree -> its files, where each edit's file is in it, the edits
TREES: dict[str, tuple[dict[str, bytes], dict[str, str], dict[str, tuple[str, Edit]]]] = {
    "demo": (demo_files({}), {}, DEMO_EDITS),
    "demo in folders": (demo_files(FOLDERS), FOLDERS, DEMO_EDITS),
    "ring": ({name: text.encode() for name, text in RING.items()}, {}, RING_EDITS),
}
EVERY_EDIT = [(tree, step) for tree, (_, _, edits) in TREES.items() for step in sorted(edits)]


def workspace(tmp_path: Path, tree: str) -> Workspace:
    files, moved, _ = TREES[tree]
    root = tmp_path / "tree"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / ".git").mkdir()
    return Workspace(root, moved)


@pytest.mark.parametrize("tree", sorted(TREES))
@pytest.mark.parametrize("seed", range(4))
def test_a_judgement_after_any_edits_says_what_a_fresh_run_says(
    tmp_path: Path, tree: str, seed: int
) -> None:
    demo = workspace(tmp_path, tree)
    edits = TREES[tree][2]
    chooser = random.Random(seed)
    assert outcome(demo.judge()) == outcome(demo.fresh())
    steps: list[str] = []
    for _ in range(10):
        if chooser.random() < 0.25:  # a file back as it was (an undo)
            name = chooser.choice(sorted({name for name, _ in edits.values()}))
            steps.append(f"{name} as it was")
            demo.edit(name, None)
        else:
            step = chooser.choice(sorted(edits))
            steps.append(step)
            demo.edit(*edits[step])
        assert outcome(demo.judge()) == outcome(demo.fresh()), f"{tree}, seed {seed}: {steps}"
    assert demo.by_parts > 0, "some judgements were made of the edited files' part alone"


@pytest.mark.parametrize(("tree", "step"), EVERY_EDIT)
def test_each_edit_alone_and_its_undo_say_what_a_fresh_run_says(
    tmp_path: Path, tree: str, step: str
) -> None:
    demo = workspace(tmp_path, tree)
    demo.judge()
    name, edit = TREES[tree][2][step]
    demo.edit(name, edit)
    assert outcome(demo.judge()) == outcome(demo.fresh()), step
    demo.edit(name, None)
    assert outcome(demo.judge()) == outcome(demo.fresh()), f"{step}, undone"


def test_an_edit_the_model_cannot_place_is_judged_whole(tmp_path: Path) -> None:
    """A Namespace that meshes every workload in it relates to them by no name or selector:
    the edit that adds it is judged whole (and says what a fresh run says, as above)."""
    ring = workspace(tmp_path, "ring")
    ring.judge()
    ring.edit(*RING_EDITS["the namespace meshed"])
    ring.judge()
    assert ring.judgement is not None and ring.judgement.whole
    ring.edit(*RING_EDITS["lines moved above alpha's env"])
    ring.judge()
    assert ring.judgement is not None and not ring.judgement.whole


def test_a_tree_with_a_chart_is_judged_as_a_run_judges_it(tmp_path: Path) -> None:
    """A chart's templates are judged in each of its value sets' renderings (variants),
    which a part of the tree cannot be: such a tree gets the run's result, every time."""
    ring = workspace(tmp_path, "ring")
    chart = ring.root / "chart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: ring\nversion: 0.1.0\n")
    (chart / "templates" / "svc.yaml").write_text(ring_manifest("delta", "alpha"))
    ring = Workspace(ring.root, {})
    first = incremental.judge(ring.sources, ring.run.settings, ring.contents, memo=ring.memo)
    assert isinstance(first, RunResult)
    assert outcome(first) == outcome(ring.fresh())


def test_a_judgement_of_another_day_is_made_whole(tmp_path: Path) -> None:
    """An exemption that ends at midnight changes the findings of every file it covers,
    edited or not: the first judgement of a new day judges everything."""
    ring = workspace(tmp_path, "ring")
    ring.judge()
    assert ring.judgement is not None
    ring.judgement.today -= datetime.timedelta(days=1)  # as if made yesterday
    ring.edit(*RING_EDITS["lines moved above alpha's env"])
    ring.judge()
    assert ring.judgement.whole


# Edits any generated file may take: (the files it applies to, the edit)
GENERATED_EDITS: dict[str, tuple[str, Edit]] = {
    "lines moved": ("", lambda text: b"# moved\n" + text),
    "a Service made headless": (
        ".yaml",
        lambda text: (
            text.replace(
                b"kind: Service\nmetadata:", b"kind: Service\nspec: {clusterIP: None}\nmetadata:", 1
            )
            if b"clusterIP" not in text
            else text
        ),
    ),
    "its first Service removed": (
        ".yaml",
        lambda text: b"\n---\n".join(
            d for n, d in enumerate(text.split(b"\n---\n")) if n != 1 or b"Service" not in d
        ),
    ),
    "an address moved to another Service": (".yaml", swap(b'value: "svc-', b'value: "svc-1')),
    "an env var renamed": ("", swap(b"UPSTREAM_ADDR", b"OTHER_ADDR")),
    "a default address changed": (".py", swap(b':50051")', b'0:50051")')),
    "no connection age": (".py", swap(b"grpc.max_connection_age_ms", b"grpc.other_ms")),
    "stops parsing": ("", lambda text: text + b"\n  bad: [\ndef broken(:\n"),
}


@pytest.mark.skipif(
    not (SHARED / "bench" / "gen_corpus.py").is_file(), reason="../shared/bench is absent"
)
@pytest.mark.parametrize("seed", range(3))
def test_a_generated_monorepo_after_any_edits_says_what_a_fresh_run_says(
    tmp_path: Path, seed: int
) -> None:
    """The benchmark's monorepo (teams of services that dial each other across teams, by
    env and by defaults in code, autoscalers, headless twins): random edits of random files."""
    root = tmp_path / "tree"
    generator = SHARED / "bench" / "gen_corpus.py"
    subprocess.run(
        [sys.executable, str(generator), str(root), "12"], check=True, capture_output=True
    )
    (root / ".git").mkdir()
    tree = Workspace(root, {})
    chooser = random.Random(seed)
    names = sorted(str(Path(path).relative_to(root)) for path in tree.original)
    assert outcome(tree.judge()) == outcome(tree.fresh())
    steps: list[str] = []
    for _ in range(12):
        name = chooser.choice(names)
        usable = [step for step, (suffix, _) in GENERATED_EDITS.items() if name.endswith(suffix)]
        step = chooser.choice([*usable, "undo"])
        steps.append(f"{name}: {step}")
        tree.edit(name, None if step == "undo" else GENERATED_EDITS[step][1])
        assert outcome(tree.judge()) == outcome(tree.fresh()), f"seed {seed}: {steps}"
    assert tree.by_parts > 0


def test_a_client_that_names_its_service_in_capitals_is_judged_again_with_it(
    tmp_path: Path,
) -> None:
    """An address names a Service in any case (`Beta.shop:50051` dials `beta`): the files
    that name an edited Service are found whatever the case they write its name in."""
    ring = workspace(tmp_path, "ring")
    ring.edit("tools/probe.py", swap(b'os.environ["UPSTREAM_ADDR"]', b'"Beta.shop:50051"'))
    ring.edit(*RING_EDITS["beta's Service removed"])
    ring.judge()  # the tool dials a Service that is not there: no finding points at it
    ring.edit("beta/k8s.yaml", None)  # the Service back: the tool's channel is pinned
    assert outcome(ring.judge()) == outcome(ring.fresh())
    assert ring.judgement is not None and not ring.judgement.whole


def test_code_no_container_runs_is_judged_again_with_the_service_its_variable_names(
    tmp_path: Path,
) -> None:
    """The tool reads PROBE_ADDR, which alpha's Deployment sets to beta's address: no
    container runs the tool, so the nearest workloads' env gives its address, and beta's
    Service coming back pins its channel, though the tool never names beta."""
    ring = workspace(tmp_path, "ring")
    ring.edit("tools/probe.py", swap(b'"UPSTREAM_ADDR"', b'"PROBE_ADDR"'))
    ring.edit(
        "alpha/k8s.yaml",
        swap(
            b"          env:\n",
            b"          env:\n            - name: PROBE_ADDR\n"
            b'              value: "beta.shop:50051"\n',
        ),
    )
    ring.edit(*RING_EDITS["beta's Service removed"])
    ring.judge()
    ring.edit("beta/k8s.yaml", None)
    assert outcome(ring.judge()) == outcome(ring.fresh())
    assert ring.judgement is not None and not ring.judgement.whole


def test_code_that_makes_an_address_of_pieces_is_judged_again_with_every_service(
    tmp_path: Path,
) -> None:
    """`"be" + os.environ["PART"]` with PART set to "ta" dials beta, whose name no file
    writes whole: beta's Service coming back pins that channel."""
    ring = workspace(tmp_path, "ring")
    ring.edit(
        "alpha/main.py",
        swap(b'os.environ["UPSTREAM_ADDR"]', b'"be" + os.environ["PART"] + ".shop:50051"'),
    )
    ring.edit("alpha/k8s.yaml", swap(b"name: UPSTREAM_ADDR", b"name: PART"))
    ring.edit("alpha/k8s.yaml", swap(b'value: "beta.shop.svc.cluster.local:50051"', b'value: "ta"'))
    ring.edit(*RING_EDITS["beta's Service removed"])
    ring.judge()
    ring.edit("beta/k8s.yaml", None)
    fresh = ring.fresh()
    assert any(f.rule == "KLB102" and f.path.endswith("alpha/main.py") for f in fresh.findings)
    assert outcome(ring.judge()) == outcome(fresh)
    assert ring.judgement is not None and not ring.judgement.whole


# Loki's ingesters are reached through its hash ring, not their Service (KLB401 says so
# at info), unless a container is seen dialling the Service: then they are called through
# it. The Service and the Deployment it selects are in files of their own, and only the
# Service is named by the client.
LOKI = {
    "loki/deploy.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ingester, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: ingester}}
  template:
    metadata: {labels: {app: ingester}}
    spec:
      containers:
        - name: ingester
          image: grafana/loki:2.9.0
          args: ["-target=ingester"]
          ports: [{name: http, containerPort: 3100}]
          readinessProbe: {httpGet: {path: /ready, port: http}}
""",
    "loki/svc.yaml": """\
apiVersion: v1
kind: Service
metadata: {name: loki-ingester, namespace: shop}
spec:
  selector: {app: ingester}
  ports: [{name: http, port: 3100, targetPort: http}]
""",
    "app/deploy.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {run: web}}
  template:
    metadata: {labels: {run: web}}
    spec:
      containers:
        - name: web
          image: registry.example/shop/web:1.0
          env: [{name: LOGS_ADDR, value: "http://loki-ingester.shop:3100"}]
""",
}


def test_a_workload_is_judged_again_when_a_client_starts_or_stops_dialling_its_service(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    for name, text in LOKI.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".git").mkdir()
    tree = Workspace(root, {})
    said = tree.judge()
    ingester = [f for f in said.findings if f.rule == "KLB401" and "loki" in f.path]
    assert ingester, "the ingester has no preStop hook"
    tree.edit("app/deploy.yaml", swap(b"loki-ingester.shop", b"elsewhere.shop"))
    assert outcome(tree.judge()) == outcome(tree.fresh())
    assert outcome(tree.fresh()) != outcome(said), "the ingester's finding says who calls it"
    tree.edit("app/deploy.yaml", None)
    assert outcome(tree.judge()) == outcome(tree.fresh())
    assert tree.judgement is not None and not tree.judgement.whole


@pytest.mark.parametrize("linked", [True, False], ids=["run by web", "run by no container"])
def test_a_service_is_judged_again_when_the_code_that_dials_it_through_its_env_changes(
    tmp_path: Path, linked: bool
) -> None:
    """The web code dials `os.environ["LOGS_HOST"] + ".shop:3100"`, the web Deployment's env
    setting LOGS_HOST to loki-ingester (no address by itself): only the code names the
    ingester's Service, and only through that env (its container's, or with no container
    running the code, the nearest workload's). Its channel removed, the ingester is no
    longer seen called through its Service."""
    root = tmp_path / "tree"
    files = {
        **LOKI,
        "web/main.py": (
            "import os\n\nimport grpc\n\n"
            'logs = grpc.insecure_channel(os.environ["LOGS_HOST"] + ".shop:3100")\n'
        ),
    }
    if linked:
        files["web/Dockerfile"] = (
            'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/main.py"]\n'
        )
    else:  # an image named for no folder, built by no Dockerfile
        files["app/deploy.yaml"] = files["app/deploy.yaml"].replace("shop/web:1.0", "other:1.0")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "app/deploy.yaml").rename(root / "web/deploy.yaml")
    web = root / "web/deploy.yaml"
    web.write_text(
        web.read_text().replace(
            '{name: LOGS_ADDR, value: "http://loki-ingester.shop:3100"}',
            "{name: LOGS_HOST, value: loki-ingester}",
        )
    )
    (root / ".git").mkdir()
    tree = Workspace(root, {})
    said = tree.judge()
    tree.edit("web/main.py", swap(b"grpc.insecure_channel(", b"print("))
    assert outcome(tree.fresh()) != outcome(said), "the ingester's finding says who calls it"
    assert outcome(tree.judge()) == outcome(tree.fresh())
    tree.edit("web/main.py", None)
    assert outcome(tree.judge()) == outcome(tree.fresh())
    assert tree.judgement is not None and not tree.judgement.whole


def test_code_that_makes_an_address_of_pieces_changed_is_judged_whole(tmp_path: Path) -> None:
    """`"loki-" + os.environ["PART"]`, PART set to ingester: no file writes the Service's
    name whole, so the code's edit is judged whole (its channel removed, the ingester is
    no longer seen called through its Service)."""
    root = tmp_path / "tree"
    files = {
        **LOKI,
        "app/main.py": (
            "import os\n\nimport grpc\n\n"
            'logs = grpc.insecure_channel("loki-" + os.environ["PART"] + ".shop:3100")\n'
        ),
        "app/Dockerfile": 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/main.py"]\n',
    }
    files["app/deploy.yaml"] = (
        files["app/deploy.yaml"]
        .replace(
            '{name: LOGS_ADDR, value: "http://loki-ingester.shop:3100"}',
            "{name: PART, value: ingester}",
        )
        .replace("shop/web:1.0", "shop/app:1.0")
    )
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".git").mkdir()
    tree = Workspace(root, {})
    said = tree.judge()
    tree.edit("app/main.py", swap(b"grpc.insecure_channel(", b"print("))
    assert outcome(tree.fresh()) != outcome(said), "the ingester's finding says who calls it"
    assert outcome(tree.judge()) == outcome(tree.fresh())
    assert tree.judgement is not None and tree.judgement.whole
