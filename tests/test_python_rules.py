"""The Python rules on real-looking code, with the manifests they are linked to, and the
false-positive traps: localhost, a channel already balanced, options k8slb cannot follow,
a test file, a local function that shares a factory's name."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.code.facts import EnvRef
from k8slb.core.findings import Finding, Severity
from k8slb.languages.python.parse import analyse
from k8slb.rulekit.examples import (
    BUILT_HERE,
    MAX_AGE_OPTIONS,
    SERVICE,
    SIGTERM_HANDLER,
    bare_pod,
    grpc_server,
    web_deployment,
)
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE
from k8slb.run.selection import codes_to_ids

from .helpers import lint_files

HEADLESS = GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
IN_SHOP = GRPC_SERVICE.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
HEADLESS_IN_SHOP = IN_SHOP.replace("spec:\n", "spec:\n  clusterIP: None\n")
BACKEND_IN_SHOP = BACKEND.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
RR = """'{"loadBalancingConfig": [{"round_robin": {}}]}'"""


def client_deployment(env_value: str, namespace: str = "shop") -> str:
    return textwrap.dedent(f"""\
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: frontend
          namespace: {namespace}
        spec:
          template:
            metadata:
              labels: {{app: frontend}}
            spec:
              containers:
                - name: web
                  env:
                    - name: BACKEND_ADDR
                      value: "{env_value}"
        """)


def lint(tmp_path: Path, files: dict[str, str], *rules: str) -> list[Finding]:
    result = lint_files(tmp_path, {k: textwrap.dedent(v) for k, v in files.items()}, rules)
    assert result.errors == []
    return result.findings


def channel(target: str, options: str = "") -> str:
    extra = f", options=[{options}]" if options else ""
    return f"import os\nimport grpc\n\nchannel = grpc.insecure_channel({target}{extra})\n"


# -- KLB102: the channel reaches a ClusterIP gRPC Service --------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "backend",
        "backend.shop",
        "backend.shop.svc",
        "backend.shop.svc.cluster.local",
        "dns:///backend.shop.svc.cluster.local",
    ],
)
def test_every_host_form_links_to_the_service(tmp_path: Path, host: str) -> None:
    files = {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP, "app.py": channel(f'"{host}:50051"')}
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "to ClusterIP Service/shop/backend stays on one pod" in finding.text
    assert (finding.path.rsplit("/", 1)[1], finding.line, finding.column) == ("app.py", 4, 11)
    assert finding.object is None and finding.related[-1].message == "Service/shop/backend"


def test_another_namespace_or_port_does_not_link(tmp_path: Path) -> None:
    files = {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP, "app.py": channel('"backend.other:50051"')}
    assert lint(tmp_path / "a", files, "KLB102") == []
    files["app.py"] = channel('"backend.shop:9090"')
    assert lint(tmp_path / "b", files, "KLB102") == []


def test_the_env_var_set_by_the_workload_is_followed(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client_deployment("backend:50051"),
        "app.py": channel('os.environ.get("BACKEND_ADDR", "localhost:50051")'),
    }
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "(BACKEND_ADDR as Deployment/shop/frontend sets it at " in finding.text
    assert finding.related[0].message == "BACKEND_ADDR='backend:50051'"


def test_the_default_in_the_code_counts_when_no_workload_sets_the_var(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP,
        "app.py": channel('os.getenv("BACKEND_ADDR", "backend.shop:50051")'),
    }
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "the default of BACKEND_ADDR" in finding.text


def test_round_robin_on_a_clusterip_is_still_pinned_and_says_so(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP,
        "app.py": channel('"backend.shop:50051"', f'("grpc.service_config", {RR})'),
    }
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "round_robin policy cannot help" in finding.text


@pytest.mark.parametrize(
    "files",
    [
        {"app.py": channel('"localhost:50051"')},
        {"tests/test_client.py": channel('"backend.shop:50051"')},
        {
            "app.py": "import grpc\n\ndef call():\n"
            "    with grpc.insecure_channel('backend.shop:50051') as c:\n        c.x()\n"
        },
        {"app.py": channel("settings.backend_address")},
        {
            "app.py": "def insecure_channel(t):\n    return t\n\n"
            "channel = insecure_channel('backend.shop:50051')  # grpc\n"
        },
    ],
    ids=["localhost", "test-file", "per-call", "unresolvable", "local-function"],
)
def test_klb102_traps(tmp_path: Path, files: dict[str, str]) -> None:
    assert lint(tmp_path, {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP, **files}, "KLB102") == []


def channel_through_a_helper(argument: str, options: str = "") -> str:
    extra = f", options=[{options}]" if options else ""
    return (
        "import os\nimport grpc\n\n\ndef make_channel(target):\n"
        f"    return grpc.insecure_channel(target{extra})\n\n\n"
        f"backend = make_channel({argument})\n"
    )


def test_a_target_passed_to_a_helper_by_an_env_var_reaches_the_clusterip(
    tmp_path: Path,
) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client_deployment("backend:50051"),
        "app.py": channel_through_a_helper('os.environ["BACKEND_ADDR"]'),
    }
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "to ClusterIP Service/shop/backend stays on one pod" in finding.text
    assert (finding.path.rsplit("/", 1)[1], finding.line, finding.column) == ("app.py", 6, 12)


def client_class(host: str, method: str = "__init__", extra: str = "") -> str:
    """A client object kept at module level, its host an instance attribute set in
    `__init__` and its channel made in `method`."""
    made = (
        '        self.channel = grpc.insecure_channel(f"{self.host}:50051")\n'
        "        self.stub = object()\n"
    )
    body = made if method == "__init__" else f"\n    def {method}(self):\n" + made
    return (
        "import os\nimport grpc\n\n\nclass BackendClient:\n"
        f"    def __init__(self):\n        self.host = {host}\n{extra}"
        f"{body}\n\nclient = BackendClient()\n"
    )


@pytest.mark.parametrize("method", ["__init__", "connect"])
def test_a_target_through_an_instance_attribute_set_in_init_reaches_the_clusterip(
    tmp_path: Path, method: str
) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client_deployment("backend"),
        "app.py": client_class('os.getenv("BACKEND_ADDR", "localhost")', method),
    }
    (finding,) = lint(tmp_path, files, "KLB102")
    assert "to ClusterIP Service/shop/backend stays on one pod" in finding.text
    assert "(BACKEND_ADDR as Deployment/shop/frontend sets it at " in finding.text


def test_an_instance_attribute_of_an_object_made_per_request_is_not_followed(
    tmp_path: Path,
) -> None:
    code = client_class('os.getenv("BACKEND_ADDR", "localhost")', "connect")
    per_request = code.replace("client = BackendClient()", "def handle():\n    BackendClient()")
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client_deployment("backend"),
        "app.py": per_request,
    }
    assert lint(tmp_path, files, "KLB102") == []


@pytest.mark.parametrize(
    "extra",
    [
        "        if os.getenv('LOCAL'):\n            self.host = 'localhost'\n",
        "        self.host, self.port = 'localhost', 1\n",
    ],
    ids=["assigned-again", "unpacked"],
)
def test_an_instance_attribute_assigned_more_than_once_is_not_followed(
    tmp_path: Path, extra: str
) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client_deployment("backend"),
        "app.py": client_class('os.getenv("BACKEND_ADDR", "localhost")', "connect", extra),
    }
    assert lint(tmp_path, files, "KLB102") == []


@pytest.mark.parametrize(
    ("service", "argument", "options"),
    [
        (HEADLESS_IN_SHOP, 'os.environ["BACKEND_ADDR"]', ""),
        (
            HEADLESS_IN_SHOP,
            '"dns:///backend.shop.svc.cluster.local:50051"',
            f'("grpc.service_config", {RR})',
        ),
    ],
    ids=["headless", "dns-round-robin"],
)
def test_a_helper_whose_callers_pass_a_balanced_target_is_not_pinned(
    tmp_path: Path, service: str, argument: str, options: str
) -> None:
    files = {
        "k8s.yaml": service + BACKEND_IN_SHOP + client_deployment("backend:50051"),
        "app.py": channel_through_a_helper(argument, options),
    }
    assert lint(tmp_path, files, "KLB102") == []


def test_a_meshed_backend_is_not_pinned(tmp_path: Path) -> None:
    meshed = BACKEND_IN_SHOP.replace(
        "      labels: {app: backend}",
        "      labels: {app: backend}\n      annotations: {linkerd.io/inject: enabled}",
    )
    files = {"k8s.yaml": IN_SHOP + meshed, "app.py": channel('"backend.shop:50051"')}
    assert lint(tmp_path, files, "KLB102") == []


def test_a_client_whose_pod_is_meshed_is_not_pinned_as_for_klb103(tmp_path: Path) -> None:
    """The client's own proxy balances each call, whatever the backend: KLB102 asks the
    question KLB103 asks, of the workload whose env gave the address."""
    client = client_deployment("backend:50051")
    meshed = client.replace(
        "      labels: {app: frontend}",
        "      labels: {app: frontend}\n      annotations: {linkerd.io/inject: enabled}",
    )
    assert meshed != client
    code = {"app.py": channel('os.environ["BACKEND_ADDR"]')}
    assert (
        len(
            lint(tmp_path / "a", {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + client, **code}, "KLB102")
        )
        == 1
    )
    assert (
        lint(tmp_path / "b", {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP + meshed, **code}, "KLB102")
        == []
    )


def test_the_workload_closest_to_the_code_decides_the_env_value(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": IN_SHOP + BACKEND_IN_SHOP,
        "frontend/deploy.yaml": client_deployment("backend:50051"),
        "other/deploy.yaml": client_deployment("localhost:50051").replace("frontend", "other"),
        "frontend/app.py": channel('os.environ["BACKEND_ADDR"]'),
        "other/app.py": channel('os.environ["BACKEND_ADDR"]'),
    }
    findings = lint(tmp_path, files, "KLB102")
    assert [f.path.rsplit("/", 2)[1] for f in findings] == ["frontend"]


# -- KLB103: pick_first to a DNS name ---------------------------------------------------


def test_pick_first_to_a_headless_service(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": HEADLESS + BACKEND,
        "app.py": channel('"dns:///backend.default.svc:50051"'),
    }
    (finding,) = lint(tmp_path, files, "KLB103")
    assert "headless Service/backend" in finding.text


@pytest.mark.parametrize(
    ("target", "options"),
    [
        ('"dns:///backend.shop.svc.cluster.local:50051"', f'("grpc.service_config", {RR})'),
        ('"dns:///backend.shop.svc.cluster.local:50051"', '("grpc.lb_policy_name", "round_robin")'),
        ('"backend.shop:50051"', "*build_options()"),
        ('"localhost:50051"', ""),
        ('"10.0.0.7:50051"', ""),
        ('"ipv4:10.0.0.1:50051,10.0.0.2:50051"', ""),
        ('"unix:///run/backend.sock"', ""),
        ('"xds:///backend"', ""),
        ('"api.example.com:443"', ""),
    ],
    ids=[
        "service-config",
        "lb-policy-name",
        "unknown-options",
        "localhost",
        "ip",
        "ipv4-list",
        "unix",
        "xds",
        "external",
    ],
)
def test_klb103_traps(tmp_path: Path, target: str, options: str) -> None:
    assert lint(tmp_path, {"app.py": channel(target, options)}, "KLB103") == []


def test_a_legacy_load_balancing_policy_counts(tmp_path: Path) -> None:
    legacy = """'{"loadBalancingPolicy": "round_robin"}'"""
    files = {"app.py": channel('"backend.shop:50051"', f'("grpc.service_config", {legacy})')}
    assert lint(tmp_path, files, "KLB103") == []


# -- KLB108 / KLB109 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ('("grpc.service_config", "{not json")', "is not valid JSON"),
        ('("grpc.service_config", {"loadBalancingConfig": []})', "is a dict"),
        (
            """("grpc.service_config", '{"loadBalancingConfig": [{"RoundRobin": {}}]}')""",
            "names no policy gRPC knows: RoundRobin",
        ),
        (
            """("grpc.service_config", '{"loadBalancingPolicy": "round-robin"}')""",
            "loadBalancingPolicy 'round-robin'",
        ),
        ('("grpc.lb_policy_name", "roundrobin")', "did you mean 'round_robin'?"),
    ],
)
def test_invalid_lb_configs(tmp_path: Path, option: str, message: str) -> None:
    (finding,) = lint(tmp_path, {"app.py": channel('"a:1"', option)}, "KLB108")
    assert message in finding.text and finding.line == 4


def test_options_on_the_wrong_side_and_typos(tmp_path: Path) -> None:
    server = grpc_server(
        ', options=[("grpc.lb_policy_name", "round_robin"), ("grpc.max_conection_age_ms", 1)]'
    )
    findings = lint(tmp_path, {"server.py": server}, "KLB109")
    assert [f.message for f in findings] == [
        "grpc.lb_policy_name acts only on a channel",
        "grpc.max_conection_age_ms is no option gRPC knows, so it is ignored",
    ]
    assert "did you mean grpc.max_connection_age_ms?" in findings[1].text
    experimental = channel('"a:1"', '("grpc.experimental.whatever", 1)')
    assert lint(tmp_path / "b", {"app.py": experimental}, "KLB109") == []


# -- KLB201 / KLB204: server connection age ----------------------------------------------


def test_server_without_max_age_and_its_traps(tmp_path: Path) -> None:
    assert len(lint(tmp_path / "a", {"s.py": grpc_server()}, "KLB201")) == 1
    assert lint(tmp_path / "b", {"s.py": grpc_server(MAX_AGE_OPTIONS)}, "KLB201") == []
    unlimited = grpc_server(', options=[("grpc.max_connection_age_ms", 2**31 - 1)]')
    assert len(lint(tmp_path / "c", {"s.py": unlimited}, "KLB201")) == 1
    assert lint(tmp_path / "d", {"s.py": grpc_server(", options=opts()")}, "KLB201") == []
    assert lint(tmp_path / "e", {"tests/test_s.py": grpc_server()}, "KLB201") == []


HPA = (
    "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n"
    "spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, "
    "minReplicas: 1, maxReplicas: 5}\n"
)


@pytest.mark.parametrize(
    ("manifests", "lowered"),
    [
        (bare_pod(), True),
        (web_deployment().replace("  replicas: 3\n", "  replicas: 1\n"), True),
        (web_deployment(), False),
        (web_deployment().replace("  replicas: 3\n", "  replicas: 1\n") + HPA, False),
    ],
    ids=["bare-pod", "one-replica", "three-replicas", "one-replica-autoscaled"],
)
def test_a_server_only_one_unscaled_replica_runs_lacks_max_age_at_info(
    tmp_path: Path, manifests: str, lowered: bool
) -> None:
    """The one-replica policy of KLB101 and KLB401: with no second pod, no client misses
    one yet; the finding says which workload runs the server and keeps its fix."""
    files = {"app.py": grpc_server(), "manifests.yaml": manifests, **dict(BUILT_HERE)}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert (finding.severity is Severity.INFO) is lowered
    assert ("runs it as one replica and nothing scales it" in finding.text) is lowered
    assert finding.edits


def test_two_one_replica_deployments_behind_one_service_are_two_pods_for_max_age(
    tmp_path: Path,
) -> None:
    """A v1 and a v2 Deployment of one replica each behind one Service: its clients stay
    on one of two pods, so the server's missing connection age is a warning, not the
    one-replica info; each alone behind a Service of its own is still info."""
    one = web_deployment(service=False).replace("  replicas: 3\n", "  replicas: 1\n")
    v2 = one.replace("name: web\nspec:", "name: web-v2\nspec:", 1)
    v2 = v2.replace("{app: web}", "{app: web, version: v2}")
    files = {"app.py": grpc_server(), **dict(BUILT_HERE)}
    both = {**files, "manifests.yaml": one + SERVICE + "---\n" + v2}
    (finding,) = lint_files(tmp_path / "both", both, ["KLB201"]).findings
    assert finding.severity is Severity.WARNING
    assert "one replica" not in finding.text
    v1 = one.replace("{app: web}", "{app: web, version: v1}")
    service_v1 = SERVICE.replace("    app: web\n", "    app: web\n    version: v1\n")
    service_v2 = service_v1.replace("name: web\n", "name: web-v2\n").replace("v1", "v2")
    apart = {**files, "manifests.yaml": v1 + service_v1 + "---\n" + v2 + service_v2}
    (finding,) = lint_files(tmp_path / "apart", apart, ["KLB201"]).findings
    assert finding.severity is Severity.INFO
    assert "each workload that runs it" in finding.text


# -- KLB403 / KLB404: shutdown --------------------------------------------------------------


def test_a_handler_in_another_module_of_the_project_counts(tmp_path: Path) -> None:
    handler = "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: stop_everything())\n"
    together = {"svc/server.py": grpc_server(), "svc/signals.py": handler}
    assert lint(tmp_path / "a", together, "KLB403") == []
    apart = {"a/server.py": grpc_server(), "b/signals.py": handler}
    assert len(lint(tmp_path / "b", apart, "KLB403")) == 1
    package = {
        "svc/app/__init__.py": "",
        "svc/app/server.py": grpc_server(),
        "svc/main.py": handler,
    }
    assert lint(tmp_path / "c", package, "KLB403") == []


def test_shutdown_only_on_keyboard_interrupt_is_no_shutdown(tmp_path: Path) -> None:
    server = grpc_server().replace(
        "    server.wait_for_termination()\n",
        "    try:\n        server.wait_for_termination()\n"
        "    except KeyboardInterrupt:\n        server.stop(5)\n",
    )
    (finding,) = lint(tmp_path, {"s.py": server}, "KLB403")
    assert "except KeyboardInterrupt" in finding.text
    assert (finding.line, finding.column) == (11, 9)


def test_asyncio_servers_with_add_signal_handler_are_fine(tmp_path: Path) -> None:
    source = """\
        import asyncio
        import signal

        import grpc


        async def serve():
            server = grpc.aio.server()
            await server.start()
            asyncio.get_running_loop().add_signal_handler(
                signal.SIGTERM, lambda: asyncio.ensure_future(server.stop(25))
            )
            await server.wait_for_termination()
        """
    assert lint(tmp_path, {"s.py": source}, "KLB403", "KLB404") == []


QUEUE_WORKER_SERVER = """\
    import asyncio
    import threading
    import time

    import grpc


    def _drain_jobs():
        while True:
            job = queue.get()
            if job is None:
                time.sleep(1)


    async def _poll_outbox():
        while True:
            try:
                await flush_outbox()
            except Exception:
                await asyncio.sleep(3)


    async def serve():
        threading.Thread(target=_drain_jobs, daemon=True).start()
        poller = asyncio.create_task(_poll_outbox())
        server = grpc.aio.server()
        server.add_insecure_port("[::]:50070")
        await server.start()
        try:
            await server.wait_for_termination()
        finally:
            poller.cancel()


    if __name__ == "__main__":
        asyncio.run(serve())
    """


def test_a_workers_loop_is_not_the_servers_wait(tmp_path: Path) -> None:
    """A `while True: sleep()` loop in a function a thread or a task runs is that
    worker's, not a wait on the server, which waits elsewhere: one finding, at the
    server's own wait."""
    (finding,) = lint(tmp_path, {"s.py": QUEUE_WORKER_SERVER}, "KLB403")
    assert "wait_for_termination()" in finding.text and finding.line == 30


def test_a_sleep_loop_where_the_server_is_started_is_its_wait(tmp_path: Path) -> None:
    """The loop is the wait where the server is started: in the same function, in one
    that calls the function that starts it, or in the script's own lines."""
    starter = textwrap.dedent("""\
        import time

        import grpc


        def start():
            server = grpc.server(None)
            server.add_insecure_port("[::]:50071")
            server.start()
        """)
    same = starter + "    while True:\n        time.sleep(3600)\n"
    caller = starter + "\n\ndef main():\n    start()\n    while True:\n        time.sleep(60)\n"
    script = starter + "\n\nstart()\nwhile True:\n    time.sleep(60)\n"
    for name, source in (("same", same), ("caller", caller), ("script", script)):
        (finding,) = lint(tmp_path / name, {"s.py": source}, "KLB403")
        assert "`while True: sleep()` loop" in finding.text, name


def test_stop_without_grace_in_a_handler(tmp_path: Path) -> None:
    stop_zero = SIGTERM_HANDLER.replace("server.stop(grace=25)", "server.stop(0)")
    (finding,) = lint(tmp_path, {"s.py": grpc_server(before_wait=stop_zero)}, "KLB404")
    assert finding.text.startswith("server.stop(0) aborts every call in flight")


_WRAPPED_SERVER = """\
    import grpc
    from concurrent import futures


    class NorthboundServer:
        def __init__(self, port=50055):
            self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=10))
            self.port = port

        def start(self):
            self.server.add_insecure_port("[::]:%s" % self.port)
            self.server.start()
            return self

        def stop(self, grace=0):
            self.server.stop(grace)
    """
_WRAPPER_CALLER = """\
    import signal

    from northbound.server import NorthboundServer


    def shutdown(components):
        for component in components:
            component.stop()


    def main():
        components = [NorthboundServer().start()]
        signal.signal(signal.SIGTERM, lambda *_: shutdown(components))
    """


def test_a_grace_parameter_whose_default_aborts_is_followed_where_no_caller_passes_one(
    tmp_path: Path,
) -> None:
    """`def stop(self, grace=0): self.server.stop(grace)` called as `component.stop()`
    stops the server with grace 0: the parameter's default, since no call k8slb sees of
    stop() passes one. A caller that passes a grace, or no caller seen at all, leaves the
    grace unknown, and nothing is said; the fix is the default's, so no edit is made."""
    files = {"northbound/server.py": _WRAPPED_SERVER, "main.py": _WRAPPER_CALLER}
    (finding,) = lint(tmp_path / "bare", files, "KLB404")
    assert finding.line == 16 and finding.text.startswith("self.server.stop(grace) aborts")
    assert "grace is 0 there: the default of stop(grace=0)" in finding.text
    assert "/main.py)" in finding.text and not finding.edits
    none = {**files, "northbound/server.py": _WRAPPED_SERVER.replace("grace=0", "grace=None")}
    assert [f.line for f in lint(tmp_path / "none", none, "KLB404")] == [16]
    passed = {**files, "main.py": _WRAPPER_CALLER.replace(".stop()", ".stop(25)")}
    assert lint(tmp_path / "passed", passed, "KLB404") == []
    # a module of the same name in another folder is another's: its caller's grace is not
    other = "import grpc\nfrom other import server\n\nserver.make().stop(25)\n"
    elsewhere = {**files, "other/server.py": "def make():\n    pass\n", "tool.py": other}
    assert [f.line for f in lint(tmp_path / "elsewhere", elsewhere, "KLB404")] == [16]
    alone = {"northbound/server.py": _WRAPPED_SERVER}
    assert lint(tmp_path / "alone", alone, "KLB404") == [], "no caller seen"
    graceful = {**files, "northbound/server.py": _WRAPPED_SERVER.replace("grace=0", "grace=5")}
    assert lint(tmp_path / "graceful", graceful, "KLB404") == []
    rebound = _WRAPPED_SERVER.replace(
        "            self.server.stop(grace)",
        "            grace = grace or 25\n            self.server.stop(grace)",
    )
    assert lint(tmp_path / "rebound", {**files, "northbound/server.py": rebound}, "KLB404") == []


# -- KLB202 / KLB203 / KLB405 ---------------------------------------------------------------


def test_http_client_linked_through_an_env_var(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": client_deployment("http://inventory.shop:8080").replace(
            "BACKEND_ADDR", "INVENTORY_URL"
        ),
        "app.py": "import os\nimport httpx\n\n"
        "client = httpx.Client(base_url=os.environ['INVENTORY_URL'])\n",
    }
    (finding,) = lint(tmp_path, files, "KLB202")
    assert "'http://inventory.shop:8080'" in finding.text


def test_a_session_sending_to_a_url_built_from_an_env_var(tmp_path: Path) -> None:
    files = {
        "k8s.yaml": client_deployment("inventory.shop").replace("BACKEND_ADDR", "INVENTORY_HOST"),
        "app.py": "import os\nimport requests\n\nsession = requests.Session()\n\n\n"
        "def stock(item):\n"
        "    return session.get(f\"http://{os.environ['INVENTORY_HOST']}:8080/s/{item}\")\n",
    }
    (finding,) = lint(tmp_path, files, "KLB202")
    assert (finding.line, finding.column) == (4, 11)
    assert "'http://inventory.shop:8080'" in finding.text


def test_db_pools(tmp_path: Path) -> None:
    source = """\
        import math
        import psycopg2.pool
        from psycopg_pool import ConnectionPool

        a = psycopg2.pool.ThreadedConnectionPool(1, 10, "postgresql://pgbouncer/app")
        b = ConnectionPool("postgresql://pgbouncer/app", max_lifetime=math.inf)
        c = ConnectionPool("postgresql://pgbouncer/app")
        """
    findings = lint(tmp_path, {"db.py": source}, "KLB203")
    assert [f.line for f in findings] == [5, 6]


def test_health_servicer_set_not_serving_elsewhere_in_the_project(tmp_path: Path) -> None:
    register = """\
        from grpc_health.v1 import health, health_pb2_grpc

        def add(server):
            servicer = health.HealthServicer()
            health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
        """
    drain = (
        "from grpc_health.v1 import health_pb2\n\n"
        "STATUS = health_pb2.HealthCheckResponse.NOT_SERVING  # grpc\n"
    )
    assert lint(tmp_path / "a", {"svc/h.py": register, "svc/d.py": drain}, "KLB405") == []
    assert len(lint(tmp_path / "b", {"svc/h.py": register}, "KLB405")) == 1


def test_a_subclass_chosen_in_a_branch_answers_with_its_bases_check(tmp_path: Path) -> None:
    """microservices-demo's email service: the Check is the base class's, the servicer a
    subclass bound after a `None` placeholder."""
    source = """\
        from grpc_health.v1 import health_pb2, health_pb2_grpc

        class BaseService:
            def Check(self, request, context):
                return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

        class DummyService(BaseService):
            pass

        def start(server, dummy):
            service = None
            if dummy:
                service = DummyService()
            else:
                raise Exception("not implemented")
            health_pb2_grpc.add_HealthServicer_to_server(service, server)
        """
    (finding,) = lint(tmp_path, {"email.py": source}, "KLB405")
    assert finding.message == "health servicer DummyService.Check always answers SERVING"
    twice = source.replace('raise Exception("not implemented")', "service = Other()")
    assert lint(tmp_path / "two", {"email.py": twice}, "KLB405") == [], "which one is unknown"


# -- KLB004 ------------------------------------------------------------------------------


def test_a_python_file_that_does_not_parse_does_not_stop_the_run(tmp_path: Path) -> None:
    files = {"broken.py": "import grpc\n\ndef serve(:\n", "s.py": grpc_server()}
    findings = lint(tmp_path, files, "KLB004", "KLB201")
    assert [(f.rule, f.path.rsplit("/", 1)[1], f.line) for f in findings] == [
        ("KLB004", "broken.py", 3),
        ("KLB201", "s.py", 7),
    ]


def test_klb004_is_named_for_code_of_any_language_and_answers_to_its_former_name(
    tmp_path: Path,
) -> None:
    """`invalid-code` (it is raised for every language read); `invalid-python`, its name
    before, still selects and suppresses it, so users' settings and comments keep working."""
    go = 'package main\n\nimport "google.golang.org/grpc"\n\nfunc main( {\n'
    files = {"broken.py": "import grpc\n\ndef serve(:\n", "main.go": go}
    findings = lint(tmp_path, files, "invalid-python")
    assert [(f.rule, f.name, f.path.rsplit("/", 1)[1]) for f in findings] == [
        ("KLB004", "invalid-code", "broken.py"),
        ("KLB004", "invalid-code", "main.go"),
    ]
    assert codes_to_ids(["invalid-python"]) == codes_to_ids(["invalid-code"]) == {"KLB004"}


@pytest.mark.parametrize(
    ("line", "construct"),
    [
        ('    print "sent", count', "a print statement"),
        ("    print count,", "a print statement"),
        ("    exec code in scope", "an exec statement"),
        ("    raise ValueError, 'no such queue'", "`raise E, message`"),
        ("    os.chmod(path, 0755)", "an old octal or long literal"),
    ],
)
def test_a_python_2_module_is_info_not_read_rather_than_an_error(
    tmp_path: Path, line: str, construct: str
) -> None:
    """A program written for Python 2 (its image pins python:2.7) is valid for its
    interpreter: k8slb does not read that language version, and says so at info."""
    source = f"import sys\nimport requests\n\n\ndef send(count):\n{line}\n"
    (finding,) = lint(tmp_path, {"generator.py": source}, "KLB004")
    assert finding.severity is Severity.INFO and finding.line == 6
    assert f"not read: Python 2 syntax ({construct}) at line 6" in finding.text
    handler = "try:\n    send(1)\nexcept IOError, error:\n    pass\n"
    (caught,) = lint(tmp_path / "except", {"generator.py": source + handler}, "KLB004")
    assert caught.severity is Severity.INFO


def test_python_2_except_comma_is_said_as_python_2_though_a_newer_grammar_takes_it(
    tmp_path: Path,
) -> None:
    """`except socket.error, err:` is Python 2's way of binding the exception; Python
    3.14 (libcst's newest grammar) reads the same line as a tuple of two exception types,
    so the file parses there: the finding still says what the file is, Python 2, not
    that it uses syntax newer than the Python k8slb runs on."""
    source = (
        "import socket\nimport requests\n\ndef read(sock):\n    try:\n"
        "        return sock.recv(10)\n"
        "    except socket.error, err:\n        return None\n"
    )
    (finding,) = lint(tmp_path, {"frameio.py": source}, "KLB004")
    assert finding.severity is Severity.INFO and finding.line == 7
    assert "not read: Python 2 syntax (`except E, e`) at line 7" in finding.text
    assert "newer" not in finding.text


def test_a_python_3_syntax_error_stays_an_error(tmp_path: Path) -> None:
    source = "import requests\n\n\ndef send(count:\n    print(count)\n"
    (finding,) = lint(tmp_path, {"generator.py": source}, "KLB004")
    assert finding.severity is Severity.ERROR and "not valid Python" in finding.text


def test_asyncpg_pools_are_judged_by_max_queries(tmp_path: Path) -> None:
    source = """\
        import asyncpg

        async def make():
            return await asyncpg.create_pool(dsn="postgresql://pgbouncer/app", max_queries=10**9)
        """
    (finding,) = lint(tmp_path / "a", {"db.py": source}, "KLB203")
    assert "max_queries=1000000000 never replaces a busy connection" in finding.text
    default = source.replace(", max_queries=10**9", "")
    assert lint(tmp_path / "b", {"db.py": default}, "KLB203") == []


def test_an_intercepted_channel_is_the_inner_one(tmp_path: Path) -> None:
    source = """\
        import grpc

        channel = grpc.intercept_channel(grpc.insecure_channel("backend.shop:50051"), Retry())
        """
    files = {"k8s.yaml": IN_SHOP + BACKEND_IN_SHOP, "app.py": source}
    (finding,) = lint(tmp_path, files, "KLB102")
    assert (finding.line, finding.column) == (3, 34)


def test_a_client_port_the_service_does_not_expose_is_an_error(tmp_path: Path) -> None:
    service = (
        "apiVersion: v1\nkind: Service\nmetadata: {name: backend, namespace: shop}\n"
        "spec:\n  selector: {app: backend}\n  ports: [{name: grpc, port: 50051}]\n"
    )
    frontend = (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: frontend, namespace: shop}\n"
        "spec:\n  selector: {matchLabels: {app: frontend}}\n  template:\n"
        "    metadata: {labels: {app: frontend}}\n    spec:\n      containers:\n"
        "        - name: web\n          image: x\n"
        "          env: [{name: BACKEND_ADDR, value: 'backend.shop:50052'}]\n"
    )
    client = (
        "import os\nimport grpc\n\nchannel = grpc.insecure_channel(os.environ['BACKEND_ADDR'])\n"
    )
    (finding,) = lint(
        tmp_path / "env", {"k8s.yaml": service + frontend, "app.py": client}, "KLB111"
    )
    assert (
        finding.message
        == "gRPC channel dials port 50052, which Service/shop/backend does not expose"
    )
    # the text says where the wrong port is set: the env entry's line, not only the code's
    assert "(BACKEND_ADDR as Deployment/shop/frontend sets it at k8s.yaml:19)" in finding.text
    assert [r.message for r in finding.related][-1] == "Service/shop/backend"
    bare = "import grpc\n\nchannel = grpc.insecure_channel('backend.shop')\n"
    (default,) = lint(tmp_path / "bare", {"k8s.yaml": service, "app.py": bare}, "KLB111")
    assert "port 443" in default.message, "grpcio's default port"
    headless = service.replace("spec:\n", "spec:\n  clusterIP: None\n", 1)
    pod_port = headless + frontend.replace("frontend", "backend").replace(
        "          env: [{name: BACKEND_ADDR, value: 'backend.shop:50052'}]\n",
        "          ports: [{containerPort: 50052}]\n",
    )
    assert (
        lint(
            tmp_path / "headless",
            {
                "k8s.yaml": pod_port,
                "app.py": client.replace("os.environ['BACKEND_ADDR']", "'backend.shop:50052'"),
            },
            "KLB111",
        )
        == []
    )


@pytest.mark.parametrize(("replicas", "severity"), [(3, "warning"), (1, "info")])
def test_a_channel_to_one_unscaled_replica_is_info_as_klb101_says_of_its_service(
    tmp_path: Path, replicas: int, severity: str
) -> None:
    """The client's finding and the Service's follow one policy: with one pod that nothing
    scales, the channel misses no pod yet, and the message says it will miss those added."""
    from k8slb.rules.grpc_client_clusterip import _ENV_CHANNEL, CLIENT
    from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

    backend = BACKEND.replace("replicas: 3", f"replicas: {replicas}")
    assert f"replicas: {replicas}" in backend
    files = {"k8s.yaml": GRPC_SERVICE + backend + CLIENT, "client.py": _ENV_CHANNEL}
    found = lint_files(tmp_path, files, ["KLB101", "KLB102"]).findings
    assert {(f.rule, f.severity.label) for f in found} == {
        ("KLB101", severity),
        ("KLB102", severity),
    }
    (client,) = [f for f in found if f.rule == "KLB102"]
    assert ("runs one replica and nothing scales it" in client.text) is (replicas == 1)


@pytest.mark.parametrize(
    ("address", "severity"),
    [
        ("127.0.0.1:50051", "info"),
        ("localhost:50051", "info"),
        ("[::1]:50051", "info"),
        ("unix:/run/app/grpc.sock", "info"),
        ("[::]:50051", "warning"),
        ("0.0.0.0:50051", "warning"),
    ],
)
def test_a_server_that_listens_on_its_pods_loopback_only_is_behind_a_sidecar(
    tmp_path: Path, address: str, severity: str
) -> None:
    """Only a proxy in the pod reaches a server on loopback: balancing across pods is that
    proxy's connections', so no kube-proxy pinning of the server's own is to be warned of."""
    server = grpc_server().replace('"[::]:50051"', f'"{address}"')
    assert f'"{address}"' in server
    (finding,) = lint(tmp_path, {"s.py": server}, "KLB201")
    assert finding.severity.name.lower() == severity
    if severity == "info":
        assert f"it listens on {address} only" in finding.text
        assert finding.fix.available


SETTINGS = """\
    from pydantic_settings import BaseSettings, SettingsConfigDict


    class Settings(BaseSettings):
        model_config = SettingsConfigDict(env_file=".env")

        DATABASE_URL: str = "postgresql+asyncpg://app:app@localhost:5432/app"


    settings = Settings()
    """
ENGINE = """\
    from sqlalchemy.ext.asyncio import create_async_engine

    from app.core.config import settings

    engine = create_async_engine(settings.DATABASE_URL)
    """
ORDERS_ENV = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: orders}
spec:
  selector: {matchLabels: {app: orders}}
  template:
    metadata: {labels: {app: orders}}
    spec:
      containers:
        - name: orders
          image: orders:1
          env:
            - name: DATABASE_URL
              valueFrom: {secretKeyRef: {name: orders-db, key: url}}
"""


def test_a_settings_class_default_on_localhost_is_no_pool_to_judge(tmp_path: Path) -> None:
    files = {"app/core/config.py": SETTINGS, "app/core/database.py": ENGINE}
    assert lint(tmp_path / "a", files, "KLB203") == []
    # a workload that sets the variable (a Secret's value: unknown) may point it anywhere
    (finding,) = lint(tmp_path / "b", {**files, "k8s/orders.yaml": ORDERS_ENV}, "KLB203")
    assert finding.path.endswith("database.py") and finding.line == 5
    # a default in the cluster is judged as before
    served = SETTINGS.replace("@localhost:5432", "@orders-db:5432")
    assert len(lint(tmp_path / "c", {**files, "app/core/config.py": served}, "KLB203")) == 1


def test_a_settings_class_instance_is_its_fields_variables() -> None:
    source = (
        textwrap.dedent(SETTINGS).replace('env_file=".env"', 'env_prefix="orders_"')
        + "URL = settings.DATABASE_URL\n"
    )
    found = analyse("app/core/config.py", source.encode())
    assert found.exports["URL"] == EnvRef(
        "ORDERS_DATABASE_URL", "postgresql+asyncpg://app:app@localhost:5432/app", any_case=True
    )


@pytest.mark.parametrize(
    ("body", "template"),
    [
        ("{% if cookiecutter.metrics %}\nimport prometheus_client\n{% endif %}\n", True),
        ('print(f"{{ name }}" +)\n', False),  # an f-string's braces: broken Python
    ],
)
def test_a_module_with_a_template_languages_control_action_is_a_template(
    tmp_path: Path, body: str, template: bool
) -> None:
    """A `.py` file that holds `{% if %}` (a project template's) is rendered before it is
    Python: KLB004 at info, not an error."""
    text = "import os\n\nimport grpc\n\n" + body
    (finding,) = lint_files(tmp_path, {"svc/server.py": text}, ["KLB004"]).findings
    assert (finding.severity == Severity.INFO) is template
    assert ("a template" in finding.message) is template


# -- a `__main__` block of a module a container only imports ------------------------------

_STANDALONE = """\
    import time
    from concurrent import futures

    import grpc


    def health():
        return "ok"


    if __name__ == "__main__":
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        server.add_insecure_port("[::]:50055")
        server.start()
        try:
            while True:
                time.sleep(3600)
        finally:
            server.stop(0)
    """
_IMPORTER = """\
    import grpc

    from northbound import health

    print(health())
    """


def _built(runs: str) -> dict[str, str]:
    """The tree of a container whose image's CMD runs `runs` (a file of /app, or `-m`
    and a module), linked by its build."""
    (skaffold, built), (dockerfile, _) = BUILT_HERE
    words = ", ".join(f'"{word}"' for word in runs.split()) if " " in runs else f'"/app/{runs}"'
    cmd = f'FROM python:3.12-slim\nCOPY . /app\nWORKDIR /app\nCMD ["python", {words}]\n'
    return {
        "k8s.yaml": web_deployment(),
        skaffold: built,
        dockerfile: cmd,
        "northbound.py": _STANDALONE,
        "app.py": _IMPORTER,
    }


def test_a_main_block_counts_only_in_a_container_that_runs_its_module_as_the_program(
    tmp_path: Path,
) -> None:
    """The server a module's `if __name__ == "__main__":` block makes, waits on and stops
    runs only where that module is the program: a container that starts app.py, which
    imports northbound.py, never runs the block, so KLB201, KLB403 and KLB404 say nothing
    of it there; a container that starts northbound.py itself runs it, and code no
    container is known to run keeps its findings."""
    rules = ("KLB201", "KLB403", "KLB404")
    assert lint(tmp_path / "imported", _built("app.py"), *rules) == []
    found = lint(tmp_path / "main", _built("northbound.py"), *rules)
    assert sorted((f.rule, f.line) for f in found) == [
        ("KLB201", 12),
        ("KLB403", 16),
        ("KLB404", 19),
    ]
    as_module = lint(tmp_path / "module", _built("-m northbound"), *rules)
    assert sorted(f.rule for f in as_module) == list(rules), "python -m runs its main block"
    alone = {"northbound.py": _STANDALONE, "app.py": _IMPORTER}
    assert sorted(f.rule for f in lint(tmp_path / "alone", alone, *rules)) == list(rules)
