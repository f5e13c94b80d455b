"""Python: what a function of another module makes (a channel of its parameter, a server),
judged where its caller keeps or stops it; pydantic settings read in any case and through
the module's own settings classes; a server that serves only the health service."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from k8slb.code.facts import EnvRef
from k8slb.core.findings import Finding, Severity
from k8slb.languages.python import parse as python_parse
from k8slb.languages.python.parse import parse

from .helpers import lint_files

HELPER = """\
from grpc import aio


def open_channel(address: str, name: str):
    options = [("grpc.max_send_message_length", 1024)]
    channel = aio.insecure_channel(address, options=options)
    return channel


def make_server(port: int):
    server = aio.server()
    server.add_insecure_port(f"0.0.0.0:{port}")
    return server
"""
SETTINGS = """\
from pydantic import Field
from pydantic_settings import BaseSettings


class Settings(BaseSettings):
    ledger_address: str | None = Field(default=None, description="the ledger's address")


settings = Settings()
"""
CLIENT = """\
from ledger_pb2_grpc import LedgerStub
from netkit.channels import open_channel

from edge.settings import settings


class Ledger:
    async def initialize(self):
        self.stub = LedgerStub(open_channel(settings.ledger_address, "edge"))
"""
MANIFESTS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: edge}
spec:
  replicas: 2
  selector: {matchLabels: {app: edge}}
  template:
    metadata: {labels: {app: edge}}
    spec:
      containers:
        - name: edge
          image: registry.example/edge:1
          env:
            - {name: ledger_address, value: "ledger:7000"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: ledger}
spec:
  replicas: 3
  selector: {matchLabels: {app: ledger}}
  template:
    metadata: {labels: {app: ledger}}
    spec:
      containers:
        - name: ledger
          image: registry.example/ledger:1
          ports: [{containerPort: 7000, name: grpc}]
---
apiVersion: v1
kind: Service
metadata: {name: ledger}
spec:
  selector: {app: ledger}
  ports: [{name: grpc, port: 7000}]
"""


def tree(**changed: str) -> dict[str, str]:
    """A monorepo of two distributions: `netkit` (its package under src/) and `edge`."""
    files = {
        "libs/netkit/pyproject.toml": '[project]\nname = "netkit"\nversion = "1"\n',
        "libs/netkit/src/netkit/__init__.py": "",
        "libs/netkit/src/netkit/channels.py": HELPER,
        "edge/pyproject.toml": '[project]\nname = "edge"\nversion = "1"\n',
        "edge/src/edge/__init__.py": "",
        "edge/src/edge/settings.py": SETTINGS,
        "edge/src/edge/ledger.py": CLIENT,
        "deploy/app.yaml": MANIFESTS,
    }
    files.update(changed)
    return files


def check(tmp_path: Path, files: dict[str, str], rule: str) -> list[Finding]:
    result = lint_files(tmp_path, files, [rule])
    assert result.errors == []
    return result.findings


# -- channels another module's function makes -----------------------------------------------


def test_a_channel_made_by_a_function_of_another_distribution_is_judged_at_the_call(
    tmp_path: Path,
) -> None:
    (finding,) = check(tmp_path, tree(), "KLB102")
    assert finding.path.endswith("edge/src/edge/ledger.py") and finding.line == 9
    assert "'ledger:7000'" in finding.text
    # the workload spells the variable in lower case: pydantic reads it in any case
    assert "LEDGER_ADDRESS as Deployment/edge sets it" in finding.text
    assert "made by `open_channel` at " in finding.text
    assert "libs/netkit/src/netkit/channels.py:6" in finding.text
    assert finding.edits == ()  # the helper's options are every caller's: no edit here


def test_a_channel_the_caller_uses_once_is_no_finding(tmp_path: Path) -> None:
    once = CLIENT.replace(
        '        self.stub = LedgerStub(open_channel(settings.ledger_address, "edge"))\n',
        '        channel = open_channel(settings.ledger_address, "edge")\n'
        "        await LedgerStub(channel).Ping(None)\n",
    )
    assert check(tmp_path, tree(**{"edge/src/edge/ledger.py": once}), "KLB102") == []


def test_a_function_that_returns_no_channel_of_its_parameter_makes_none(tmp_path: Path) -> None:
    fixed = HELPER.replace("aio.insecure_channel(address,", 'aio.insecure_channel("ledger:7000",')
    files = tree(**{"libs/netkit/src/netkit/channels.py": fixed})
    # the helper's own channel is judged where it is made; the caller's call is no channel
    assert all("/libs/" in f.path for f in check(tmp_path, files, "KLB102"))


def test_a_channel_or_server_in_a_local_that_is_returned_is_the_function_s() -> None:
    facts = parse("netkit/channels.py", HELPER.encode())
    helper = facts.exports["channel open_channel"]
    assert (helper.index, helper.name, helper.factory) == (
        0,
        "address",
        "grpc.aio.insecure_channel",
    )
    assert facts.exports["server make_server"] == "grpc.aio.server"


# -- pydantic settings ----------------------------------------------------------------------


def test_a_case_sensitive_settings_class_reads_the_field_as_spelt() -> None:
    sensitive = SETTINGS.replace(
        "class Settings(BaseSettings):", "class Settings(BaseSettings, case_sensitive=True):"
    )
    fields = parse("settings.py", sensitive.encode()).exports["settings"]
    assert fields["ledger_address"] == EnvRef("ledger_address", None)
    fields = parse("settings.py", SETTINGS.encode()).exports["settings"]
    assert fields["ledger_address"] == EnvRef("LEDGER_ADDRESS", None, any_case=True)


def test_a_case_sensitive_class_is_not_set_by_another_case(tmp_path: Path) -> None:
    sensitive = SETTINGS.replace(
        "class Settings(BaseSettings):", "class Settings(BaseSettings, case_sensitive=True):"
    ).replace("ledger_address", "LEDGER_ADDRESS")
    files = tree(
        **{
            "edge/src/edge/settings.py": sensitive,
            "edge/src/edge/ledger.py": CLIENT.replace("ledger_address", "LEDGER_ADDRESS"),
        }
    )
    assert check(tmp_path, files, "KLB102") == []  # the workload sets `ledger_address`


DERIVED = """\
from pydantic_settings import BaseSettings, SettingsConfigDict


class DriverSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="EDGE_")

    driver: str = "pg"


class Settings(DriverSettings):
    grpc_port: int = 8030
    ledger_address: str = "localhost:7000"


class Plain(Settings.__class__):
    other: str = "x"


settings = Settings()
"""


def test_a_settings_class_derived_from_one_of_the_module_reads_its_fields_too() -> None:
    fields = parse("settings.py", DERIVED.encode()).exports["settings"]
    assert fields["driver"] == EnvRef("EDGE_DRIVER", "pg", any_case=True)
    assert fields["ledger_address"] == EnvRef(
        "EDGE_LEDGER_ADDRESS", "localhost:7000", any_case=True
    )
    assert fields["grpc_port"] == EnvRef("EDGE_GRPC_PORT", "8030", any_case=True)  # its text


def test_a_class_not_derived_from_base_settings_is_no_settings_class() -> None:
    plain = DERIVED.replace("class DriverSettings(BaseSettings):", "class DriverSettings:")
    exports = parse("settings.py", plain.encode()).exports
    assert not isinstance(exports.get("settings"), dict)


# -- servers another module's function makes, and health-only servers ---------------------

SERVE = """\
from netkit.channels import make_server

import ledger_pb2_grpc


async def serve(servicer):
    server = make_server(7000)
    ledger_pb2_grpc.add_LedgerServicer_to_server(servicer, server)
    await server.start()

    async def finalizer():
        await server.stop(grace=False)

    return finalizer
"""


def test_a_server_another_module_makes_is_stopped_without_grace_here(tmp_path: Path) -> None:
    files = tree(**{"edge/src/edge/serve.py": SERVE})
    (finding,) = check(tmp_path, files, "KLB404")
    assert finding.path.endswith("edge/src/edge/serve.py") and finding.line == 12
    assert finding.severity is Severity.WARNING
    graceful = SERVE.replace("grace=False", "grace=25")
    assert check(tmp_path / "b", tree(**{"edge/src/edge/serve.py": graceful}), "KLB404") == []


def test_a_name_bound_to_what_a_function_that_makes_no_server_returns_is_no_server(
    tmp_path: Path,
) -> None:
    helper = HELPER.replace("    server = aio.server()\n", "    server = object()\n")
    files = tree(**{"edge/src/edge/serve.py": SERVE, "libs/netkit/src/netkit/channels.py": helper})
    assert check(tmp_path, files, "KLB404") == []


HEALTH = """\
from grpc import aio
from grpc_health.v1 import health, health_pb2_grpc


def setup_health(server):
    servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)


async def start_health(port: int):
    server = aio.server()
    server.add_insecure_port(f"0.0.0.0:{port}")
    setup_health(server)
    await server.start()

    async def finalizer():
        await server.stop(grace=False)

    return finalizer
"""


def test_a_server_that_serves_only_the_health_service_is_info(tmp_path: Path) -> None:
    files = {"app/health.py": HEALTH}
    (stop,) = check(tmp_path / "stop", files, "KLB404")
    assert stop.severity is Severity.INFO and "only the standard health service" in stop.text
    (age,) = check(tmp_path / "age", files, "KLB201")
    assert age.severity is Severity.INFO and "only the standard health service" in age.text


def test_a_stop_of_a_name_that_some_server_of_other_services_has_is_not_health_only(
    tmp_path: Path,
) -> None:
    """A stop names a server by its variable: where a module binds the name to a health-only
    server and to another, a stop of it may stop either, and is said as the other's."""
    served = "    orders_pb2_grpc.add_OrdersServicer_to_server(None, server)\n"
    orders = HEALTH.replace("start_health", "start_orders")
    orders = orders.replace("    setup_health(server)\n", served)
    files = {"app/health.py": HEALTH + "\n\n" + orders.split("\n\n\n", 2)[2]}
    stops = check(tmp_path, files, "KLB404")
    assert [stop.severity for stop in stops] == [Severity.WARNING] * 2
    assert not any("only the standard health service" in stop.text for stop in stops)


def test_a_server_given_another_service_or_handed_elsewhere_is_not_health_only() -> None:
    other = HEALTH.replace(
        "    setup_health(server)\n",
        "    setup_health(server)\n"
        "    orders_pb2_grpc.add_OrdersServicer_to_server(None, server)\n",
    )
    handed = HEALTH.replace(
        "    await server.start()\n", "    register(server)\n    await server.start()\n"
    )
    returned = HEALTH.replace("    return finalizer\n", "    return server\n")
    for source in (other, handed, returned):
        (server,) = parse("app/health.py", source.encode()).servers
        assert not server.health_only
    (server,) = parse("app/health.py", HEALTH.encode()).servers
    assert server.health_only


def test_a_server_with_no_health_registration_is_not_health_only() -> None:
    # nothing registered here at all: nothing says it serves only probes
    bare = HEALTH.replace("    setup_health(server)\n", "")
    (server,) = parse("app/health.py", textwrap.dedent(bare).encode()).servers
    assert not server.health_only


def test_a_module_that_never_spells_the_health_registration_is_not_walked_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No call of an ASCII module can be the health registration unless its bytes spell
    the function's name: its servers are not health-only, and no walk asks."""
    made: list[object] = []
    real = python_parse.HealthOnly
    monkeypatch.setattr(python_parse, "HealthOnly", lambda *a: made.append(a) or real(*a))
    other = HEALTH.replace("add_HealthServicer_to_server", "add_OrdersServicer_to_server")
    (server,) = parse("app/health.py", other.encode()).servers
    assert not server.health_only and made == []
    (server,) = parse("app/health.py", HEALTH.encode()).servers
    assert server.health_only and len(made) == 1


def test_a_health_registration_spelled_in_other_unicode_is_still_read() -> None:
    # Python reads identifiers in NFKC: a fullwidth `ａ` is an `a` (the bytes' search
    # cannot see it, so a module that is not ASCII is walked)
    wide = HEALTH.replace(".add_HealthServicer_to_server", ".\uff41dd_HealthServicer_to_server")
    assert b"add_HealthServicer_to_server" not in wide.encode()
    (server,) = parse("app/health.py", wide.encode()).servers
    assert server.health_only
