"""Extracting facts from Python: names followed through aliases, values through
assignments, env vars, f-strings; options in every shape people write; lifetimes."""

from __future__ import annotations

import sys
import textwrap

import pytest
from k8slb.code.facts import UNKNOWN, CodeFacts, EnvRef
from k8slb.core.findings import Severity
from k8slb.languages.python.parse import analyse


def facts(source: str, path: str = "svc/app.py") -> CodeFacts:
    return analyse(path, textwrap.dedent(source).encode())


def only_channel(source: str):  # type: ignore[no-untyped-def]
    (channel,) = facts(source).channels
    return channel


@pytest.mark.parametrize(
    "source",
    [
        "import grpc\nch = grpc.insecure_channel('a:1')\n",
        "import grpc as g\nch = g.insecure_channel('a:1')\n",
        "from grpc import insecure_channel as ic\nch = ic('a:1')\n",
        "from grpc import aio\nch = aio.insecure_channel('a:1')\n",
        "import grpc.aio as gaio\nch = gaio.secure_channel('a:1', creds)\n",
    ],
    ids=["module", "module-alias", "function-alias", "aio", "aio-alias"],
)
def test_channel_factories_are_found_through_aliases(source: str) -> None:
    assert only_channel(source).target == "a:1"


def test_a_local_function_named_like_a_factory_is_not_grpc() -> None:
    source = (
        "import grpc\n\ndef insecure_channel(t):\n    return t\n\nch = insecure_channel('a:1')\n"
    )
    assert facts(source).channels == []


def test_files_that_mention_no_watched_module_are_not_parsed() -> None:
    assert facts("def broken(:\n").problem is None


def test_a_file_that_does_not_parse_is_a_problem_with_its_line() -> None:
    problem = facts("import grpc\n\n\ndef serve(:\n    pass\n").problem
    assert problem is not None and problem.rule == "KLB004" and problem.line == 4


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ('"backend:50051"', "backend:50051"),
        ("ADDR", "backend:50051"),
        ('f"{HOST}:50051"', "backend:50051"),
        ('HOST + ":" + "50051"', "backend:50051"),
        ('os.environ["BACKEND"]', EnvRef("BACKEND", None)),
        ('os.environ.get("BACKEND", "backend:1")', EnvRef("BACKEND", "backend:1")),
        (
            'os.getenv("BACKEND_HOST", "backend") + ":50051"',
            EnvRef("BACKEND_HOST", "backend", suffix=":50051"),
        ),
        ("f\"dns:///{os.getenv('H')}:50051\"", EnvRef("H", None, "dns:///", ":50051")),
        ("ENV_ADDR", EnvRef("BACKEND", "x:1")),
        ("settings.backend", UNKNOWN),
        ("target_from(config)", UNKNOWN),
    ],
)
def test_targets_are_resolved_as_far_as_they_can_be(expression: str, expected: object) -> None:
    source = (
        "import os\nimport grpc\nHOST = 'backend'\nADDR = 'backend:50051'\n"
        "ENV_ADDR = os.environ.get('BACKEND', 'x:1')\n"
        f"ch = grpc.insecure_channel({expression})\n"
    )
    assert only_channel(source).target == expected


def keys(source: str) -> tuple[bool, list[tuple[str, object]]]:
    options = only_channel(source).options
    return options.complete, [(o.key, o.value) for o in options.entries]


RR = '{"loadBalancingConfig": [{"round_robin": {}}]}'


def test_options_as_a_list_or_tuple_of_pairs() -> None:
    assert keys(
        "import grpc\nch = grpc.insecure_channel('a:1', [('grpc.lb_policy_name', 'round_robin')])\n"
    ) == (True, [("grpc.lb_policy_name", "round_robin")])
    assert keys("import grpc\nch = grpc.insecure_channel('a:1', options=(('grpc.x', 1),))\n") == (
        True,
        [("grpc.x", 1)],
    )


def test_options_held_in_a_name_and_built_up_with_append_extend_and_plus() -> None:
    source = f"""
    import grpc
    SC = '{RR}'
    OPTS = [("grpc.service_config", SC)]
    OPTS.append(("grpc.keepalive_time_ms", 10_000))
    OPTS += [("grpc.enable_retries", 1)]
    ch = grpc.insecure_channel("a:1", options=OPTS + [("grpc.primary_user_agent", "x")])
    """
    assert keys(source) == (
        True,
        [
            ("grpc.service_config", RR),
            ("grpc.keepalive_time_ms", 10000),
            ("grpc.enable_retries", 1),
            ("grpc.primary_user_agent", "x"),
        ],
    )


def test_options_through_functools_partial() -> None:
    source = """
    import functools
    import grpc
    RR = [("grpc.lb_policy_name", "round_robin")]
    dial = functools.partial(grpc.insecure_channel, options=RR)
    ch = dial("a:1")
    """
    channel = only_channel(source)
    assert channel.target == "a:1"
    assert [(o.key, o.value) for o in channel.options.entries] == [
        ("grpc.lb_policy_name", "round_robin")
    ]


def test_server_options_through_a_kwargs_dict() -> None:
    source = """
    import grpc
    KW = {"options": [("grpc.max_connection_age_ms", 60_000)]}
    server = grpc.aio.server(**KW)
    """
    (server,) = facts(source).servers
    assert [(o.key, o.value) for o in server.options.entries] == [
        ("grpc.max_connection_age_ms", 60000)
    ]
    assert server.name == "server" and server.factory == "grpc.aio.server"


def test_options_from_a_function_call_are_unknown_not_missing() -> None:
    assert keys("import grpc\nch = grpc.insecure_channel('a:1', options=build())\n") == (False, [])
    source = (
        "import grpc\nch = grpc.insecure_channel('a:1', options=[make_pair(), ('grpc.x', 1)])\n"
    )
    assert keys(source) == (False, [("grpc.x", 1)])


def test_service_config_built_with_json_dumps_is_read() -> None:
    source = """
    import json
    import grpc
    CONFIG = json.dumps({"loadBalancingConfig": [{"round_robin": {}}]})
    ch = grpc.insecure_channel("a:1", options=[("grpc.service_config", CONFIG)])
    """
    assert keys(source)[1] == [("grpc.service_config", RR)]


@pytest.mark.parametrize(
    ("source", "long_lived"),
    [
        ("ch = grpc.insecure_channel('a:1')", True),
        ("if __name__ == '__main__':\n    ch = grpc.insecure_channel('a:1')", True),
        ("class C:\n    def __init__(self):\n        self.ch = grpc.insecure_channel('a:1')", True),
        ("def main():\n    ch = grpc.insecure_channel('a:1')\n    run(ch)", True),
        ("def make():\n    return grpc.insecure_channel('a:1')", True),
        (
            "@functools.lru_cache\ndef stub():\n"
            "    ch = grpc.insecure_channel('a:1')\n    return Stub(ch)",
            True,
        ),
        ("def call():\n    with grpc.insecure_channel('a:1') as ch:\n        ch.x()", False),
        (
            "async def call():\n"
            "    async with grpc.aio.insecure_channel('a:1') as ch:\n        await ch.x()",
            False,
        ),
        ("def call():\n    ch = grpc.insecure_channel('a:1')\n    ch.x()\n    ch.close()", False),
    ],
    ids=[
        "module",
        "main-guard",
        "self",
        "main",
        "factory",
        "cached",
        "with",
        "async-with",
        "per-call",
    ],
)
def test_lifetime(source: str, long_lived: bool) -> None:
    assert only_channel("import functools\nimport grpc\n" + source + "\n").long_lived is long_lived


def test_shutdown_facts() -> None:
    source = """
    import asyncio
    import signal
    import grpc

    async def serve():
        server = grpc.aio.server()
        await server.start()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(server.stop(5)))
        try:
            await server.wait_for_termination()
        except KeyboardInterrupt:
            await server.stop(None)
    """
    found = facts(source)
    assert found.starts == {"server"}
    assert [w.server for w in found.waits] == ["server"]
    assert [(s.grace, s.in_keyboard_interrupt) for s in found.stops] == [(5, False), (None, True)]
    assert len(found.sigterm_handlers) == 1


@pytest.mark.parametrize(
    "registration",
    [
        "for sig in (signal.SIGINT, signal.SIGTERM):\n    signal.signal(sig, stop)",
        "STOPPING = [signal.SIGINT, signal.SIGTERM]\nfor sig in STOPPING:\n"
        "    signal.signal(sig, stop)",
        "def main():\n    loop = asyncio.get_event_loop()\n"
        "    for s in {signal.SIGTERM, signal.SIGHUP}:\n        loop.add_signal_handler(s, stop)",
        'signal.signal(getattr(signal, "SIGTERM"), stop)',
        "signal.signal(signal.Signals.SIGTERM, stop)",
        "TERM = signal.SIGTERM\nsignal.signal(TERM, stop)",
        "from signal import SIGTERM\nsignal.signal(SIGTERM, stop)",
        "for name in ['SIGINT', 'SIGTERM']:\n    signal.signal(getattr(signal, name), stop)",
        "class Service:\n    def _install(self):\n"
        "        for signame in ('SIGINT', 'SIGTERM', 'SIGQUIT'):\n"
        "            self._loop.add_signal_handler(getattr(signal, signame), self._stop)",
    ],
    ids=[
        "tuple-loop",
        "named-list",
        "asyncio-set",
        "getattr",
        "enum",
        "bound",
        "imported",
        "getattr-loop",
        "add-signal-handler-getattr-loop",
    ],
)
def test_sigterm_handlers_registered_through_names_and_loops(registration: str) -> None:
    source = "import asyncio\nimport signal\nimport grpc\n\n" + registration + "\n"
    assert len(facts(textwrap.dedent(source)).sigterm_handlers) == 1


def test_a_loop_over_other_signals_registers_no_sigterm_handler() -> None:
    source = """
    import signal
    import grpc
    for sig in (signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: None)
    for name in ("SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), lambda *_: None)
    """
    assert facts(source).sigterm_handlers == []


def test_sig_dfl_and_other_signals_are_not_sigterm_handlers() -> None:
    source = """
    import signal
    import grpc
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, lambda *_: None)
    """
    assert facts(source).sigterm_handlers == []


def test_stop_on_something_that_is_not_a_grpc_server_is_ignored() -> None:
    source = "import grpc\nworker = Worker()\nworker.stop(0)\n"
    assert facts(source).stops == []


def test_http_clients_and_db_pools() -> None:
    source = """
    import httpx, requests, aiohttp
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool
    a = requests.Session()
    b = httpx.AsyncClient(base_url="http://api:8080", http2=True)
    c = httpx.Client(limits=httpx.Limits(keepalive_expiry=0))
    d = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True))
    e = create_engine("postgresql://db/app")
    f = create_engine("postgresql://db/app", poolclass=NullPool)
    g = create_engine("postgresql://db/app", pool_recycle=1800)
    """
    found = facts(source)
    assert [(c.factory, c.http2, c.reuse_disabled, c.base_url) for c in found.http_clients] == [
        ("requests.Session", False, False, None),
        ("httpx.AsyncClient", True, False, "http://api:8080"),
        ("httpx.Client", False, True, None),
        ("aiohttp.ClientSession", False, True, None),
    ]
    assert [(p.url, p.lifetime) for p in found.db_pools] == [
        ("postgresql://db/app", None),
        ("postgresql://db/app", 1800),
    ]


def test_test_files_are_marked() -> None:
    for path in ("tests/test_x.py", "pkg/tests/helpers.py", "x_test.py", "conftest.py"):
        assert facts("import grpc\n", path).is_test
    assert not facts("import grpc\n", "svc/contest.py").is_test


def test_a_parameter_is_not_the_module_constant_of_the_same_name() -> None:
    source = """
    import grpc
    target = "backend:50051"

    def make(target):
        return grpc.insecure_channel(target)
    """
    assert only_channel(source).target is UNKNOWN


def test_a_parameter_is_what_the_calls_of_its_function_pass_one_channel_each() -> None:
    source = """
    import os
    import grpc

    def make_channel(target):
        return grpc.insecure_channel(target)

    GEO = make_channel(os.environ["GEO_ADDR"])
    RATE = make_channel(f"{os.getenv('RATE_HOST', 'rate')}:50051")
    AGAIN = make_channel(os.environ["GEO_ADDR"])
    """
    geo, rate = facts(source).channels
    assert geo.target == EnvRef("GEO_ADDR", None) and geo.long_lived
    assert rate.target == EnvRef("RATE_HOST", "rate", suffix=":50051")
    assert geo.loc == rate.loc  # the dial's place: where a fix goes


def test_a_parameter_is_followed_through_callers_and_built_into_a_text() -> None:
    source = """
    import os
    import grpc

    class Client:
        def __init__(self, host, port=50051):
            self.channel = grpc.insecure_channel(f"{host}:{port}")

    def connect(name):
        return Client(name + ".shop")

    backend = connect(os.environ["BACKEND_HOST"])
    """
    channel = only_channel(source)
    assert channel.target == EnvRef("BACKEND_HOST", None, suffix=".shop:50051")


def test_a_method_parameter_is_what_calls_on_an_object_pass() -> None:
    source = """
    import grpc

    class Pool:
        def open(self, target):
            self.channel = grpc.insecure_channel(target)

    def main():
        Pool().open("backend.shop:50051")
    """
    assert only_channel(source).target == "backend.shop:50051"


@pytest.mark.parametrize(
    "source",
    [
        # rebound in its function: not only what the callers pass
        "def make(t):\n    t = t or load()\n    return grpc.insecure_channel(t)\nc = make('a:1')\n",
        # a call passes it through *args or **kwargs
        "def make(t):\n    return grpc.insecure_channel(t)\nc = make(*targets)\n",
        "def make(t):\n    return grpc.insecure_channel(t)\nc = make(**settings)\n",
        # more values than a parameter is followed to (budget.MAX_CHOICES)
        "def make(t):\n    return grpc.insecure_channel(t)\n"
        + "".join(f"c{i} = make('h{i}:1')\n" for i in range(9)),
    ],
    ids=["rebound", "star-args", "star-kwargs", "too-many"],
)
def test_a_parameter_the_calls_do_not_tell_is_unknown(source: str) -> None:
    assert only_channel("import grpc\n" + source).target is UNKNOWN


def test_a_factory_is_judged_once_a_caller_what_the_module_keeps_and_a_handler_uses_once() -> None:
    source = """
    import os
    import grpc

    def connect(target):
        return grpc.insecure_channel(target)

    PAYMENT = connect(os.environ["PAYMENT_ADDR"])

    def charge():
        return stub(connect("bad-address:50051")).Charge()

    def handle():
        channel = connect("inventory:50051")
        channel.close()
    """
    kept, once, local = facts(source).channels
    assert (kept.target, kept.long_lived) == (EnvRef("PAYMENT_ADDR", None), True)
    assert (once.target, once.long_lived) == ("bad-address:50051", False)
    assert (local.target, local.long_lived) == ("inventory:50051", False)


def test_a_url_built_from_an_http_literal_is_read_whole_or_to_its_origin() -> None:
    source = """
    import os
    import requests

    HOST = os.environ["INVENTORY_HOST"]
    session = requests.Session()

    def stock(item):
        return session.get(f"http://{HOST}:8080/stock/{item}").json()

    def price():
        return session.get("http://" + os.getenv("PRICE_HOST", "price") + "/p").json()

    def other(host, item):
        return session.get(f"http://{host}/{item}").json()
    """
    assert [url for url, _ in facts(source).urls] == [
        # the path holds a parameter no call passes: the URL's scheme, host and port
        EnvRef("INVENTORY_HOST", None, prefix="http://", suffix=":8080"),
        EnvRef("PRICE_HOST", "price", prefix="http://", suffix="/p"),
    ]  # a host that cannot be followed gives no URL


def test_a_client_and_a_pool_address_through_a_parameter() -> None:
    source = """
    import os
    import httpx
    from sqlalchemy import create_engine

    def client(base):
        return httpx.Client(base_url=base)

    def engine(url):
        return create_engine(url)

    INVENTORY = client("http://inventory.shop:8080")
    DB = engine(os.environ["DATABASE_URL"])
    """
    found = facts(source)
    assert [c.base_url for c in found.http_clients] == ["http://inventory.shop:8080"]
    assert [p.url for p in found.db_pools] == [EnvRef("DATABASE_URL", None)]


def test_loop_and_with_targets_are_not_followed() -> None:
    source = """
    import grpc
    addr = "a:1"
    for addr in load():
        ch = grpc.insecure_channel(addr)
    """
    assert only_channel(source).target is UNKNOWN


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="needs syntax newer than the runtime")
def test_syntax_newer_than_the_runtime_is_not_analysed_rather_than_broken() -> None:
    problem = facts("import grpc\n\ntype Target = str\n").problem
    assert problem is not None and problem.severity is Severity.INFO
    assert "not analysed" in problem.message


@pytest.mark.parametrize(
    ("source", "routes"),
    [
        (
            'from flask import Flask\napp = Flask(__name__)\n@app.route("/healthz")\n'
            '@app.get("/livez")\ndef health():\n    return "ok"\n',
            [("/healthz", "health", True), ("/livez", "health", True)],
        ),
        (
            "from fastapi import APIRouter\n"
            'router = APIRouter(prefix="/health")\n@router.get("/ready")\nasync def ready():\n'
            '    """Docs."""\n    return {"status": "ok"}\n',
            [("/health/ready", "ready", True)],
        ),
        (
            "import flask\napp = flask.Flask(__name__)\ndef live():\n    db.ping()\n"
            '    return "ok"\napp.add_url_rule("/live", view_func=live)\n',
            [("/live", "live", False)],
        ),
        (
            "from aiohttp import web\nasync def ready(request):\n    return web.Response()\n"
            'app = web.Application()\napp.router.add_get("/ready", ready)\n'
            'app.add_routes([web.get("/live", ready)])\n',
            [("/ready", "ready", True), ("/live", "ready", True)],
        ),
        (
            "from starlette.routing import Route\nasync def ok(request):\n    return 1\n"
            'routes = [Route("/ready", endpoint=ok)]\n',
            [("/ready", "ok", True)],
        ),
        (
            "from django.urls import path\nfrom . import views\n"
            'urlpatterns = [path("healthz/", views.health)]\n',
            [("/healthz/", "views.health", False)],
        ),
        (
            "from flask_restx import Api, Resource\napi = Api(app)\n"
            "ns = api.namespace('products', description='Products')\n"
            "@ns.route('/ping')\nclass Ping(Resource):\n    def get(self):\n"
            "        return 'healthy'\n"
            "@ns.route('/<int:id>')\nclass One(Resource):\n    def get(self, id):\n"
            "        return db.find(id)\n"
            "    def put(self, id):\n        return db.save(id)\n",
            [("/products/ping", "Ping.get", True), ("/products/<int:id>", "One.get", False)],
        ),
        (
            "from flask_restx import Namespace, Resource\n"
            "health = Namespace('health', path='/healthz')\n"
            "orders = Namespace('orders')\n"
            "@health.route('/ready')\nclass Ready(Resource):\n    def get(self):\n"
            "        return {'status': 'ok'}\n"
            "@orders.route('/live')\nclass Live(Resource):\n    def get(self):\n"
            "        return {'status': 'ok'}\n"
            "api.add_namespace(orders, path='/v1/orders')\n",
            [("/healthz/ready", "Ready.get", True), ("/v1/orders/live", "Live.get", True)],
        ),
    ],
    ids=[
        "flask",
        "fastapi-prefix",
        "add-url-rule",
        "aiohttp",
        "starlette",
        "django",
        "restx-namespace",
        "restx-namespace-path",
    ],
)
def test_http_routes_and_their_handlers(source: str, routes: list[tuple[str, str, bool]]) -> None:
    found = facts(source).routes
    assert sorted((r.path, r.handler, r.trivial) for r in found) == sorted(routes)


def test_a_module_is_searched_for_its_imports_and_its_watched_words_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a file's reading costs what its parse does: the byte searches a reader needs are
    # made once, the collector reusing the imports `parse` read (a registration's check)
    from k8slb.languages.python import parse as python

    searched: list[str] = []
    module_imports, worth_parsing = python.module_imports, python.worth_parsing

    def imports_of(data: bytes) -> tuple[tuple[int, str], ...]:
        searched.append("module_imports")
        return module_imports(data)

    def worth(data: bytes) -> bool:
        searched.append("worth_parsing")
        return worth_parsing(data)

    monkeypatch.setattr(python, "module_imports", imports_of)
    monkeypatch.setattr(python, "worth_parsing", worth)
    source = b"import consul\nimport grpc\nc = consul.Consul()\nc.agent.service.register('api')\n"
    facts = python.parse("svc/app.py", source)
    assert [r.registry for r in facts.registrations] == ["Consul"]
    assert sorted(searched) == ["module_imports", "worth_parsing"]


STAND_IN = """
import grpc
from concurrent import futures


class InMemoryLedgerMock(LedgerServicer):
    '''Answers the ledger's calls from a dict, for the client's tests.'''

    def start(self):
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        self._server.add_insecure_port("[::]:50070")
        self._server.start()

    def stop(self):
        self._server.stop(None)
"""


def test_a_fake_class_s_server_is_a_tests() -> None:
    found = facts(STAND_IN, "ledger/impl/grpc/server.py")
    assert (found.servers, found.stops, found.starts) == ([], [], set())


@pytest.mark.parametrize(
    "change",
    [
        ("InMemoryLedgerMock", "InMemoryLedger"),  # no name says it is a fake
        (
            "    def stop(self):",
            'if __name__ == "__main__":\n    pass\n\n\nclass Other:\n    def stop(self):',
        ),
    ],
    ids=["not-named-a-fake", "runs-as-a-program"],
)
def test_a_server_a_program_may_run_is_read(change: tuple[str, str]) -> None:
    found = facts(STAND_IN.replace(*change), "ledger/impl/grpc/server.py")
    assert len(found.servers) == 1


@pytest.mark.parametrize(
    ("made", "lifetime"),
    [
        ('kwargs = {"pool_size": 5}\n    kwargs["pool_recycle"] = 600', 600),
        ('kwargs = {"pool_recycle": 1200, "pool_size": 5}', 1200),
        ("kwargs = dict(pool_recycle=300)", 300),
        (
            'kwargs = {}\n    if fast:\n        kwargs["pool_recycle"] = 60\n'
            '    else:\n        kwargs["pool_recycle"] = 900',
            UNKNOWN,
        ),
        ('kwargs = {"pool_size": 5}', None),
    ],
    ids=["stored", "literal", "dict-call", "stored-twice", "not-given"],
)
def test_pool_recycle_through_a_spread_dict(made: str, lifetime: object) -> None:
    source = (
        "import os\nfrom sqlalchemy import create_engine\n\n\ndef build(fast):\n"
        f"    {made}\n"
        '    return create_engine(os.environ["DATABASE_URL"], **kwargs)\n\n\n'
        "ENGINE = build(False)\n"
    )
    (pool,) = facts(source).db_pools
    assert pool.lifetime == lifetime
