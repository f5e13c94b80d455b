"""`fix` writes a file only when the result is the old file plus exactly the intended
change: aliases, anchors and block scalars are placed right, and where the text-splicing
would go wrong, the read-back guard refuses instead of writing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from k8slb.core.edits import YamlEdit
from k8slb.editing import yaml_edit
from k8slb.editing.verify import plain, yaml_fix_problem
from k8slb.interface.cli import cli
from k8slb.languages.python import edit as python_edit
from k8slb.reading import yamlcompose
from k8slb.reading.yamlcompose import compose

from .helpers import FIXTURES

ALIASES = FIXTURES / "fix" / "aliases.yaml"


def _fix(path: Path, *options: str) -> tuple[int, str]:
    done = CliRunner().invoke(cli, ["fix", "--isolated", "--unsafe-fixes", *options, str(path)])
    return done.exit_code, done.output


def _documents(path: Path) -> list[dict[str, object]]:
    composed = compose(path.read_text())
    assert composed.problems == []
    return [plain(d.data) for d in composed.documents]


def test_fixes_around_aliases_land_where_they_belong(tmp_path: Path) -> None:
    target = tmp_path / "aliases.yaml"
    shutil.copy(ALIASES, target)
    _fix(target)
    service, twin, deployment = _documents(target)
    assert service["spec"]["selector"] == {"app": "backend"}, "the Service is still whole"
    assert twin["metadata"]["name"] == "backend-headless"
    server, sidecar, notes = deployment["spec"]["template"]["spec"]["containers"]
    assert server["lifecycle"] == {"preStop": {"sleep": {"seconds": 5}}}
    assert server["livenessProbe"] == {"tcpSocket": {"port": 8080}}
    assert server["readinessProbe"]["httpGet"]["path"] == "/healthz"
    assert "lifecycle" not in sidecar and sidecar["resources"] == server["resources"]
    assert notes["args"] == ["keep these\n\n"], "a |+ scalar keeps its blank lines"
    fixed = target.read_bytes()
    _fix(target)
    assert target.read_bytes() == fixed, "fixing twice is fixing once"


def test_a_block_scalar_with_kept_blank_lines_at_the_end_of_a_container(tmp_path: Path) -> None:
    text = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    container = "        - name: server\n"
    assert container in text
    text = text.replace(
        container, container + "          args:\n            - |+\n              x\n\n\n"
    )
    target = tmp_path / "backend.yaml"
    target.write_text(text)
    before = _documents(target)
    _fix(target, "--select", "KLB401")
    after = _documents(target)
    server = after[0]["spec"]["template"]["spec"]["containers"][0]
    assert server["args"] == before[0]["spec"]["template"]["spec"]["containers"][0]["args"]
    assert "lifecycle" in server


def test_when_positions_are_wrong_the_guard_refuses_instead_of_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixer as it was before aliases were handled: it would split the Service and
    write a duplicate key. The read-back check refuses those edits; the file keeps every
    byte it had where no faithful fix was possible."""
    target = tmp_path / "aliases.yaml"
    shutil.copy(ALIASES, target)
    monkeypatch.setattr(yaml_edit, "_shared_nodes", lambda roots: set())
    _, output = _fix(target)
    assert "would change more than the fix" in output or "not be valid YAML" in output
    documents = _documents(target)
    assert documents[0]["spec"]["selector"] == {"app": "backend"}
    for document in documents:
        assert set(document) <= {"apiVersion", "kind", "metadata", "spec"}


def test_python_that_would_not_compile_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = "import grpc\n\nserver = grpc.server(None)\n"
    target = tmp_path / "server.py"
    target.write_text(source)
    monkeypatch.setattr(
        python_edit, "apply_python", lambda text, edits, line_length=None: text + "def (\n"
    )
    _, output = _fix(target)
    assert target.read_text() == source
    assert "would not compile" in output


SERVER = "server = grpc.server(None)\nserver.start()\nserver.wait_for_termination()\n"


@pytest.mark.parametrize(
    ("head", "expected_head"),
    [
        (
            '"""Doc."""\nfrom __future__ import annotations\n\nimport grpc\n',
            '"""Doc."""\nfrom __future__ import annotations\n\nimport signal\nimport grpc\n',
        ),
        ('"""Doc."""\nimport grpc\n', '"""Doc."""\nimport signal\nimport grpc\n'),
        (
            '"""Doc."""\nimport grpc\nimport signal as sg\n',
            '"""Doc."""\nimport grpc\nimport signal as sg\n',
        ),
    ],
    ids=["after-future", "after-docstring", "own-alias"],
)
def test_the_sigterm_handler_import_goes_where_python_allows_and_uses_the_modules_names(
    tmp_path: Path, head: str, expected_head: str
) -> None:
    target = tmp_path / "server.py"
    target.write_text(head + "\n" + SERVER)
    _fix(target, "--select", "KLB403")
    fixed = target.read_text()
    assert fixed.startswith(expected_head), fixed
    compile(fixed, str(target), "exec")
    name = "sg" if "as sg" in head else "signal"
    assert f"{name}.signal({name}.SIGTERM, lambda signum, frame: server.stop(grace=25))" in fixed
    code, _ = _fix(target, "--select", "KLB403")
    assert target.read_text() == fixed and code == 0, "recognised: not added again"


def test_a_module_that_binds_signal_to_a_function_is_refused(tmp_path: Path) -> None:
    source = "import grpc\nfrom signal import signal\n\n" + SERVER
    target = tmp_path / "server.py"
    target.write_text(source)
    _, output = _fix(target, "--select", "KLB403")
    assert target.read_text() == source
    assert "binds the name 'signal' to something else" in output


def test_a_fix_that_never_settles_is_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fix its own rule does not recognise would be made again on every pass."""
    source = "import grpc\n\n" + SERVER
    target = tmp_path / "server.py"
    target.write_text(source)
    monkeypatch.setattr(
        python_edit,
        "apply_python",
        lambda text, edits, line_length=None: text + "# one more line\n",
    )
    _, output = _fix(target, "--select", "KLB201")
    assert target.read_text() == source
    assert "do not settle" in output


def test_an_options_list_shared_by_a_server_and_a_channel_gets_no_fix(tmp_path: Path) -> None:
    source = (
        "import grpc\n\nOPTIONS = [('grpc.keepalive_time_ms', 10000)]\n\n"
        "server = grpc.server(None, options=OPTIONS)\n"
        "channel = grpc.insecure_channel('backend.shop.svc.cluster.local:50051', options=OPTIONS)\n"
    )
    target = tmp_path / "app.py"
    target.write_text(source)
    _fix(target)
    assert target.read_text() == source, "either side's options would reach the other"
    alone = source.replace("options=OPTIONS)\nchannel", "options=[])\nchannel")
    target.write_text(alone)
    _fix(target, "--select", "KLB201")
    assert "grpc.max_connection_age_ms" in target.read_text(), "an own list is fixed"


def test_comments_stay_on_their_lines_when_options_are_added(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text(
        "import grpc\n\nserver = grpc.server(\n    None,\n    options=[\n"
        '        ("grpc.keepalive_time_ms", 10000),  # ten seconds\n    ],\n)\n'
        "other = grpc.server(\n    None,  # no pool\n)\n"
    )
    _fix(target, "--select", "KLB201")
    assert target.read_text() == (
        "import grpc\n\nserver = grpc.server(\n    None,\n    options=[\n"
        '        ("grpc.keepalive_time_ms", 10000),  # ten seconds\n'
        '        ("grpc.max_connection_age_ms", 300_000),\n'
        '        ("grpc.max_connection_age_grace_ms", 30_000),\n    ],\n)\n'
        "other = grpc.server(\n    None,  # no pool\n"
        '    options=[("grpc.max_connection_age_ms", 300_000), '
        '("grpc.max_connection_age_grace_ms", 30_000)],\n)\n'
    )


def test_the_read_back_compares_every_document_and_changes_none_it_reads() -> None:
    """An edit of the second document: a text that also changed the first is refused, and
    the trees the check shares (one compose per text) are as they were."""
    old = "a: 1\n---\nspec:\n  replicas: 1\n"
    grace = YamlEdit("f.yaml", 1, ("spec",), "set-grace", 30)
    shared = compose(old)
    assert (
        yaml_fix_problem(
            old,
            old.replace("replicas: 1", "replicas: 1\n  terminationGracePeriodSeconds: 30"),
            [grace],
        )
        is None
    )
    assert [plain(d.data) for d in shared.documents] == [{"a": 1}, {"spec": {"replicas": 1}}]
    also_first = "a: 2\n---\nspec:\n  replicas: 1\n  terminationGracePeriodSeconds: 30\n"
    assert "would change more than the fix" in str(yaml_fix_problem(old, also_first, [grace]))


@pytest.mark.parametrize("builder", ["c", "python"])
@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ("data: {x: " + "[" * 250 + "]" * 250 + "}", "nesting deeper than 200 levels"),
        ("data: &loop {x: *loop}", "the alias *loop is inside its own anchor"),
    ],
)
def test_a_file_the_fixer_cannot_read_whole_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str, why: str, builder: str
) -> None:
    """A document nested past the limit, or an alias inside its own anchor (which the check
    reports, and which ruamel's composer makes into a node that holds itself), beside
    documents with fixes: the file's fixes are refused, with the reason, and the file is not
    touched; by the fixer's nodes made in C, or by the read-back where they are ruamel's."""
    if builder == "python":
        monkeypatch.setattr(yamlcompose, "_native", None)
    elif yamlcompose._native is None:
        pytest.skip("the C builder was not built here")
    target = tmp_path / "backend.yaml"
    text = (FIXTURES / "demo" / "bad" / "backend.yaml").read_text()
    odd = f"---\nkind: ConfigMap\napiVersion: v1\nmetadata: {{name: odd}}\n{extra}\n"
    target.write_text(text + odd)
    before = target.read_bytes()
    _, output = _fix(target)
    refusals = [line for line in output.splitlines() if line.startswith("k8slb: not fixed: ")]
    assert refusals and all(why in line for line in refusals), output
    assert output.splitlines()[-1].startswith("Nothing fixed;")
    assert target.read_bytes() == before


SHARED_PROBE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1
          readinessProbe: &probe
            httpGet: {path: /healthz, port: 8080}
          livenessProbe: *probe
"""


def test_a_refused_fix_names_its_rule_and_why_and_is_not_said_to_be_made(
    tmp_path: Path,
) -> None:
    """The liveness probe is an alias of the readiness probe: the KLB301 fix would change
    both, so it is refused, by rule id and with the reason, and nothing is "also made"."""
    target = tmp_path / "d.yaml"
    target.write_text(SHARED_PROBE)
    done = CliRunner().invoke(
        cli,
        ["fix", "--isolated", "--no-cache", "--unsafe-fixes", "--select", "KLB301", str(target)],
    )
    assert done.stdout.splitlines()[-1] == "Nothing fixed; 1 finding remains."
    assert f"not fixed: {target}: KLB301: the liveness probe is a YAML alias" in done.stderr
    assert "liveness-tcp" not in done.output and "also made" not in done.output
    assert target.read_text() == SHARED_PROBE


STATEFUL_BACKEND = """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: backend
  namespace: shop
spec:
  serviceName: backend
  replicas: 3
  selector:
    matchLabels: {app: backend}
  template:
    metadata:
      labels: {app: backend}
    spec:
      containers:
        - name: server
          image: backend:1
---
apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: shop
spec:
  selector: {app: backend}
  ports:
    - name: grpc
      port: 50051
"""
PASSTHROUGH_CLIENT = """\
package main

import "google.golang.org/grpc"

var conn, _ = grpc.Dial("backend.shop.svc.cluster.local:50051", grpc.WithInsecure())
"""


def test_a_fix_that_moves_a_finding_under_another_rule_does_not_count_it_fixed(
    tmp_path: Path,
) -> None:
    """KLB110's fix makes the StatefulSet's Service headless: the passthrough grpc.Dial that
    was KLB102 (a ClusterIP) is now KLB103 (one address whatever the policy). The client
    still reaches one pod: KLB102 was moved, not fixed."""
    (tmp_path / "backend.yaml").write_text(STATEFUL_BACKEND)
    (tmp_path / "main.go").write_text(PASSTHROUGH_CLIENT)
    rules = "KLB102,KLB103,KLB110"
    options = ["--isolated", "--no-cache", "--unsafe-fixes", "--select", rules]
    done = CliRunner().invoke(cli, ["fix", *options, str(tmp_path)])
    summary = done.stdout.splitlines()[-1]
    assert summary.startswith("Fixed 1 finding (KLB110) in 1 file"), summary
    assert "not fixed but moved: KLB102 is now KLB103" in summary
    assert "main.go:5:15: KLB103" in done.stdout
