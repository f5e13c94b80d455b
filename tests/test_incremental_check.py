"""`k8slb check` of a whole tree after an edit judges again only the files the edit may
change (incremental.after_edit, from what the last whole run left in the cache), and
says exactly what a fresh run of the edited tree says: every edit of tests/test_incremental.py
made on disk, a file added and one removed, in seeded random sequences (a failure names
its seed and steps, and replays)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from k8slb.core.results import RunResult
from k8slb.interface import api
from k8slb.model import index, links
from k8slb.model.objects import Container
from k8slb.reading.objects import K8sObject
from k8slb.run import incremental
from k8slb.run.cache import Cache

from .test_incremental import (
    FOLDERS,
    RING,
    RING_EDITS,
    SECOND_SERVICE,
    TREES,
    Edit,
    outcome,
    ring_manifest,
    swap,
)

Step = tuple[str, Edit | None]  # a file, and its edit (None: the file removed)


class Tree:
    """A tree on disk, checked with the cache after each edit as `k8slb check .` checks
    it, and afresh."""

    def __init__(self, root: Path, cache: Path, moved: dict[str, str]) -> None:
        self.root, self.cache, self.moved = root, cache, moved
        self.by_parts = 0  # checks made of the edited files' part alone

    def edit(self, name: str, edit: Edit | None) -> None:
        path = self.root / self.moved.get(name, name)
        if edit is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(edit(path.read_bytes() if path.exists() else b""))

    def check(self, monkeypatch: pytest.MonkeyPatch) -> RunResult:
        judged: list[bool] = []

        def spied(*arguments: object, **options: object) -> RunResult | None:
            found = incremental.after_edit(*arguments, **options)  # type: ignore[arg-type]
            judged.append(found is not None)
            return found

        monkeypatch.setattr(api, "after_edit", spied)
        run = api.plan([str(self.root)])
        result = api.check(run, jobs=1, cache=Cache(run.cache_root, self.cache))
        self.by_parts += any(judged)
        return result

    def fresh(self) -> RunResult:
        return api.check(api.plan([str(self.root)]), jobs=1)


def tree(tmp_path: Path, name: str) -> Tree:
    files, moved, _ = TREES[name]
    root = tmp_path / "tree"
    for file, data in files.items():
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_bytes(data)
    (root / ".git").mkdir()
    return Tree(root, tmp_path / "cache", moved)


def steps(name: str) -> dict[str, Step]:
    """The tree's edits, a Service added in a file of its own, and a file removed."""
    edits: dict[str, Step] = dict(TREES[name][2])
    edits["a Service added in a file of its own"] = ("added.yaml", lambda _: SECOND_SERVICE)
    edits["the added file removed"] = ("added.yaml", None)
    edits["a changed file removed"] = (
        sorted({file for file, _ in TREES[name][2].values()})[0],
        None,
    )
    return edits


@pytest.mark.parametrize("name", sorted(TREES))
@pytest.mark.parametrize("seed", range(3))
def test_a_check_after_any_edits_on_disk_says_what_a_fresh_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, seed: int
) -> None:
    checked = tree(tmp_path, name)
    edits = steps(name)
    chooser = random.Random(seed)
    assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh())
    done: list[str] = []
    for _ in range(8):
        step = chooser.choice(sorted(edits))
        done.append(step)
        checked.edit(*edits[step])
        assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh()), (
            f"{name}, seed {seed}: {done}"
        )
    assert checked.by_parts > 0, "some checks judged the edited files' part alone"


@pytest.mark.parametrize(
    "step",
    [
        "Service headless",
        "client channel removed",
        "a Service added in a file of its own",
        "a changed file removed",
    ],
)
def test_one_edit_is_judged_by_its_part_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """A manifest's object changed, code changed, a file added, a file removed: each is
    checked from the last whole run, and says what a fresh check says."""
    checked = tree(tmp_path, "demo in folders")
    checked.check(monkeypatch)
    checked.edit(*steps("demo in folders")[step])
    assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh())
    assert checked.by_parts == 1


def test_a_run_with_context_leaves_the_last_whole_run_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-commit hook's run (the changed file named, the tree as context) judges its
    file alone: what the last whole run left (its result among it) is never loaded."""
    checked = tree(tmp_path, "demo in folders")
    checked.check(monkeypatch)
    checked.edit(*steps("demo in folders")["Service headless"])
    loaded: list[Path] = []

    def last_whole(cache: Cache) -> object:
        loaded.append(cache.folder or Path())
        return None

    monkeypatch.setattr(Cache, "last_whole", last_whole)
    named = str(checked.root / FOLDERS["backend.yaml"])
    run = api.plan([named], api.Options(context=[str(checked.root)]))
    result = api.check(run, jobs=1, cache=Cache(run.cache_root, checked.cache))
    assert result.paths == [named]
    assert loaded == []


# Edits of what a container's link rests on (links.py): the build files, a Dockerfile, the
# modules of the linked project, the image a workload runs.
SKAFFOLD = b"""\
apiVersion: skaffold/v4beta6
kind: Config
build:
  artifacts:
    - image: registry.example/shop/beta
      context: gamma
"""
LINK_EDITS: dict[str, Step] = {
    "alpha's Dockerfile runs its helper": (
        "alpha/Dockerfile",
        swap(b"/app/main.py", b"/app/helper.py"),
    ),
    "a build file builds beta's image from gamma": ("skaffold.yaml", lambda _: SKAFFOLD),
    "the build file removed": ("skaffold.yaml", None),
    "a module added to alpha's program": (
        "alpha/extra.py",
        lambda _: b"import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: None)\n",
    ),
    "alpha's main imports the added module": (
        "alpha/main.py",
        swap(b"import grpc\n", b"import grpc\nimport extra\n"),
    ),
    "alpha's image renamed for gamma": (
        "alpha/k8s.yaml",
        swap(b"registry.example/shop/alpha:1.0", b"registry.example/shop/gamma:1.0"),
    ),
}


@pytest.mark.parametrize("seed", range(4))
def test_a_check_after_edits_of_what_links_rest_on_says_what_a_fresh_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """The links the last whole run made are taken for the model before an edit: after
    edits of their evidence (and of the rest), the links and findings are a fresh run's."""
    checked = tree(tmp_path, "ring")
    edits = {**steps("ring"), **LINK_EDITS}
    chooser = random.Random(seed)
    checked.check(monkeypatch)
    done: list[str] = []
    for _ in range(8):
        step = chooser.choice(sorted(edits))
        done.append(step)
        checked.edit(*edits[step])
        result = checked.check(monkeypatch)
        assert outcome(result) == outcome(checked.fresh()), f"seed {seed}: {done}"
    assert checked.by_parts > 0


@pytest.mark.parametrize("step", sorted(LINK_EDITS))
def test_each_edit_of_what_a_link_rests_on_says_what_a_fresh_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    checked.edit(*LINK_EDITS[step])
    assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh())


def test_a_check_after_a_manifest_edit_links_only_the_edited_workload_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The model before the edit takes the links the last whole run left; the model after
    it keeps them for every workload the edit left as it was: only the edited workload's
    container is linked (each model linked every container, one after the other). A
    check that finds every byte as the last found them (a file touched) keeps them too."""
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    (checked.root / "alpha" / "k8s.yaml").touch()
    checked.check(monkeypatch)
    linked: list[str] = []
    link = links._Finder.link

    def counted(finder: links._Finder, workload: K8sObject, container: Container) -> object:
        linked.append(f"{workload.name}:{container.name}")
        return link(finder, workload, container)

    monkeypatch.setattr(links._Finder, "link", counted)
    checked.edit(*RING_EDITS["alpha dials gamma"])
    result = checked.check(monkeypatch)
    assert checked.by_parts == 1
    assert linked == ["alpha:server"]
    monkeypatch.undo()
    assert outcome(result) == outcome(checked.fresh())


def hook(checked: Tree, name: str) -> RunResult:
    """The pre-commit hook's run on a file (.pre-commit-hooks.yaml: the tree as context)."""
    run = api.plan([str(checked.root / name)], api.Options(context=[str(checked.root)]))
    return api.check(run, jobs=1, cache=Cache(run.cache_root, checked.cache))


def fresh_hook(checked: Tree, name: str) -> RunResult:
    run = api.plan([str(checked.root / name)], api.Options(context=[str(checked.root)]))
    return api.check(run, jobs=1)


def test_a_hook_on_a_changed_module_takes_the_links_of_the_last_whole_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Which containers run the changed module takes every container's link: where what
    links rest on is as the last whole check left it (no build file, no module's header
    changed), its links are taken for the workloads of unchanged files, and none is made."""
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    linked: list[str] = []
    link = links._Finder.link

    def counted(finder: links._Finder, workload: K8sObject, container: Container) -> object:
        linked.append(f"{workload.name}:{container.name}")
        return link(finder, workload, container)

    monkeypatch.setattr(links._Finder, "link", counted)
    checked.edit(*RING_EDITS["beta's server caps connection age"])
    result = hook(checked, "beta/main.py")
    assert linked == []
    monkeypatch.undo()
    assert outcome(result) == outcome(fresh_hook(checked, "beta/main.py"))


@pytest.mark.parametrize("step", sorted(LINK_EDITS))
def test_a_hook_after_an_edit_of_what_links_rest_on_makes_them_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """A build file, a Dockerfile, a module or an image changed since the last whole check:
    the hook on the edited file (and on a module the links may now place elsewhere) says
    what it says with no cache."""
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    name, edit = LINK_EDITS[step]
    checked.edit(name, edit)
    for named in [name, "alpha/main.py", "beta/main.py"] if edit is not None else ["alpha/main.py"]:
        assert outcome(hook(checked, named)) == outcome(fresh_hook(checked, named)), named


def small_tree(tmp_path: Path, files: dict[str, bytes]) -> Tree:
    """A git tree of `files` and a dozen ConfigMaps: an edit of one of those few files is
    judged by its part alone."""
    checked = Tree(tmp_path / "tree", tmp_path / "cache", {})
    configs = {
        f"other/config-{number}.yaml": (
            f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: config-{number}\n"
        ).encode()
        for number in range(12)
    }
    for name, data in {**files, **configs}.items():
        (checked.root / name).parent.mkdir(parents=True, exist_ok=True)
        (checked.root / name).write_bytes(data)
    (checked.root / ".git").mkdir()
    return checked


def test_a_go_file_that_stops_being_a_program_unlinks_its_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Go folder of no `main` package is a library no image runs: the package clause is
    part of what links rest on, and a check after it changed links the container again
    (the link of the program it was had been kept)."""
    checked = small_tree(
        tmp_path,
        {
            "api/k8s.yaml": ring_manifest("api", "api").encode(),
            "api/main.go": b'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("up") }\n',
        },
    )
    assert [row.code for row in checked.check(monkeypatch).links] == [str(checked.root / "api")]
    checked.edit("api/main.go", swap(b"package main", b"package api"))
    result = checked.check(monkeypatch)
    assert checked.by_parts == 1
    assert [row.code for row in result.links] == [None]
    assert outcome(result) == outcome(checked.fresh())


def registering_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Tree:
    """A server whose image is named for the gRPC service its folder's code registers (a
    link guessed from the code's body, not its imports), checked once; then the
    registration is gone."""
    servicer = (
        "import grpc\nimport ledger_pb2_grpc\n\n\ndef serve():\n"
        "    server = grpc.server(None)\n"
        "    ledger_pb2_grpc.add_LedgerServicer_to_server(object(), server)\n"
        '    server.add_insecure_port("[::]:50051")\n    server.start()\n'
    )
    checked = small_tree(
        tmp_path,
        {
            "deploy/ledger.yaml": ring_manifest("ledger", "ledger").encode(),
            "core/server.py": servicer.encode(),
            "core/Dockerfile": b'FROM python:3.12-slim\nCOPY . .\nCMD ["python", "server.py"]\n',
        },
    )
    first = checked.check(monkeypatch)
    assert [row.code for row in first.links] == [str(checked.root / "core" / "server.py")]
    checked.edit("core/server.py", swap(b"add_LedgerServicer_to_server", b"add_to_server"))
    return checked


def test_a_check_after_a_server_stops_registering_the_service_its_image_names_links_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept links of the last whole run are not taken where a module's code changed
    what links read of it (CodeFacts.link_digest), though its imports are the same."""
    checked = registering_tree(tmp_path, monkeypatch)
    result = checked.check(monkeypatch)
    assert checked.by_parts == 1
    assert outcome(result) == outcome(checked.fresh())


@pytest.mark.parametrize("named", ["deploy/ledger.yaml", "core/server.py"])
def test_a_hook_after_a_server_stops_registering_the_service_its_image_names_links_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    checked = registering_tree(tmp_path, monkeypatch)
    assert outcome(hook(checked, named)) == outcome(fresh_hook(checked, named))


def test_a_hook_on_a_changed_module_reads_no_pod_template_the_rules_do_not_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The links taken from the last whole check say which containers run the module and
    which modules the others start without their workloads' bodies: beta's module reads
    the pod templates of beta (it runs it) and gamma (beta dials its Service), not
    alpha's."""
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    read: list[str | None] = []
    template = index.pod_template

    def counted(workload: K8sObject) -> object:
        read.append(workload.name)
        return template(workload)

    monkeypatch.setattr(index, "pod_template", counted)
    checked.edit(*RING_EDITS["beta's server caps connection age"])
    result = hook(checked, "beta/main.py")
    assert sorted(read) == ["beta", "gamma"]
    monkeypatch.undo()
    assert outcome(result) == outcome(fresh_hook(checked, "beta/main.py"))


@pytest.mark.parametrize(
    "edit",
    [
        swap(b"- name: server", b"- name: api"),
        swap(
            b"image: registry", b'command: ["python", "/app/helper.py"]\n          image: registry'
        ),
    ],
    ids=["container renamed", "command changed"],
)
def test_a_hook_after_a_workloads_container_changed_answers_from_the_new_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Edit
) -> None:
    """A manifest edited since the last whole check (a container's name, its command): the
    links kept for its workload are not taken, and the hook on the module it runs answers
    as it does with no cache, not as before."""
    checked = tree(tmp_path, "ring")
    checked.check(monkeypatch)
    before = outcome(hook(checked, "alpha/main.py"))
    checked.edit("alpha/k8s.yaml", edit)
    after = outcome(hook(checked, "alpha/main.py"))
    assert after == outcome(fresh_hook(checked, "alpha/main.py"))
    assert after != before


def worker(name: str, containers: tuple[str, ...] = ("worker",)) -> bytes:
    """A Deployment of no Service, no code and no name the ring's files say."""
    listed = "".join(
        f"        - name: {container}\n          image: registry.example/jobs/{name}:1.0\n"
        for container in containers
    )
    return (
        f"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n"
        f"  namespace: jobs\nspec:\n  selector:\n    matchLabels: {{app: {name}}}\n"
        f"  template:\n    metadata:\n      labels: {{app: {name}}}\n    spec:\n"
        f"      containers:\n{listed}"
    ).encode()


def test_a_check_after_a_manifest_edit_reads_no_body_of_the_workloads_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The links both models take from the last whole run, for the workloads the edit
    left as they were, are compared, listed (the result's link rows) and asked who runs a
    module without being made: no pod template of a workload outside the judged part is
    read, and the check says what a fresh one says."""
    # (no module no container runs: where one dials an env value, the rules look for it
    # in every workload's env; no Dockerfile beside the edited file: where one is judged,
    # every workload may run its image)
    files = {
        name: text.encode()
        for name, text in RING.items()
        if name != "tools/probe.py" and not name.endswith("Dockerfile")
    }
    files |= {f"workers/worker-{number}.yaml": worker(f"worker-{number}") for number in range(6)}
    checked = small_tree(tmp_path, files)
    checked.check(monkeypatch)
    read: list[str] = []
    template = index.pod_template

    def counted(workload: K8sObject) -> object:
        read.append(workload.name or "")
        return template(workload)

    monkeypatch.setattr(index, "pod_template", counted)
    checked.edit(*RING_EDITS["alpha dials gamma"])
    result = checked.check(monkeypatch)
    monkeypatch.undo()
    assert checked.by_parts == 1
    assert [row.code for row in result.links if row.container.startswith("Deployment/shop/")]
    assert read and not [name for name in read if name.startswith("worker-")]
    assert outcome(result) == outcome(checked.fresh())


@pytest.mark.parametrize("seed", range(3))
def test_a_check_after_edits_beside_workloads_of_one_name_says_what_a_fresh_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """Two workloads of one name (their links share a key) and a workload of two
    containers of one name: the links kept unmade are not told apart by their keys, so
    they are compared and listed as made, after seeded sequences of edits of them and of
    the ring."""
    files = {name: text.encode() for name, text in RING.items()}
    files["twins/a.yaml"] = worker("twin")
    files["twins/b.yaml"] = worker("twin")
    files["pair/k8s.yaml"] = worker("pair", ("job", "job"))
    checked = small_tree(tmp_path, files)
    checked.check(monkeypatch)
    edits: dict[str, Step] = {
        "a twin's image renamed": ("twins/b.yaml", swap(b"jobs/twin", b"jobs/alpha")),
        "the pair's image retagged": ("pair/k8s.yaml", swap(b"jobs/pair:1.0", b"jobs/pair:2.0")),
        "a twin added": ("twins/c.yaml", lambda _: worker("twin")),
        **{step: (name, edit) for step, (name, edit) in RING_EDITS.items()},
    }
    chosen = random.Random(seed).sample(sorted(edits), 4)
    for step in chosen:
        checked.edit(*edits[step])
        assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh()), (seed, chosen, step)


LOADED = "a ConfigMap the container loads its env from, with a prefix"


@pytest.mark.parametrize("seed", range(4))
def test_a_check_after_edits_of_a_file_of_several_services_says_what_a_fresh_check_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """A file of nine Services, each dialled its own way (container strings, channels
    through the env, a literal target, a Service whose ports show no gRPC but a channel
    dials): who dials the judged Services is searched once for all of them
    (Context._judged_services), and a check after seeded sequences of edits of the
    Services and their clients says what a fresh check says."""
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE, HEADLESS_TWIN

    from .test_dialers import CLIENTS, OTHERS, SERVICES, channel, workload

    # a second Service of backend's pods whose port only a channel shows is gRPC's
    plain = "---\n" + GRPC_SERVICE.replace("name: backend", "name: plain")
    plain = plain.replace("name: grpc", "name: tcp").replace("port: 50051", "port: 9000")
    texts = {
        "backend.yaml": GRPC_SERVICE + BACKEND + HEADLESS_TWIN + SERVICES + plain,
        "client/app.py": channel('os.environ["ADDR"]'),
        "client/client.yaml": workload("client", "ADDR", "backend"),
        "caller/app.py": channel('"svc-1.shop:50051"'),
        **OTHERS,
        # the one client of plain: a channel whose address a ConfigMap gives (envFrom)
        **{
            name.replace("client", "loader"): text.replace("client", "loader").replace(
                "backend.default:50051", "plain.default:9000"
            )
            for name, text in CLIENTS[LOADED][0].items()
        },
    }
    checked = small_tree(tmp_path, {name: text.encode() for name, text in texts.items()})
    checked.check(monkeypatch)
    said = {(f.rule, f.path.rpartition("/")[2]) for f in checked.fresh().findings}
    assert {("KLB101", "backend.yaml"), ("KLB102", "app.py")} <= said
    plain = [f for f in checked.fresh().findings if f.rule == "KLB101" and "plain" in f.message]
    assert plain, "plain's one client shows it carries gRPC"
    edits: dict[str, Step] = {
        "a Service renamed": ("backend.yaml", swap(b"svc-2, namespace", b"svc-9, namespace")),
        "plain shows gRPC": ("backend.yaml", swap(b"name: tcp", b"name: grpc")),
        "the twin removed": ("backend.yaml", swap(b"name: backend-headless", b"name: elsewhere")),
        "a client retargeted": ("client/client.yaml", swap(b'"backend"', b'"svc-3.shop:50051"')),
        "a channel retargeted": ("caller/app.py", swap(b'"svc-1.shop:50051"', b'"plain:9000"')),
        "a peer's address": ("other-4.yaml", swap(b"svc-4:50051", b"plain:50051")),
        "a peer's channel": ("other-1/app.py", swap(b'"PEER"', b'"ADDR"')),
        "the ConfigMap retargeted": (
            "loader/client.yaml",
            swap(b"plain.default:9000", b"svc-5.shop:50051"),
        ),
        "the ConfigMap's client retargeted": ("loader/app.py", swap(b"SVC_ADDR", b"SVC_ADDRESS")),
    }
    chosen = random.Random(seed).sample(sorted(edits), 5)
    for step in chosen:
        checked.edit(*edits[step])
        assert outcome(checked.check(monkeypatch)) == outcome(checked.fresh()), (seed, chosen, step)
    assert checked.by_parts > 0, "some checks judged the edited files' part alone"
