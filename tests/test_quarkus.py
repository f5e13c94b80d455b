"""Quarkus's gRPC and datasources: what its extensions build from a service's settings
(`quarkus.grpc.*`, `quarkus.datasource.*`) where the code makes no builder."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import EnvRef, EnvText
from k8slb.code.imported import resolve_imports
from k8slb.code.projects import assign_projects
from k8slb.languages.java.parse import parse as parse_java
from k8slb.languages.java.parse_quarkus import parse as parse_settings
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files, rules_of

RESOURCES = "fights/src/main/resources"
CLIENT_PATH = "fights/src/main/java/org/acme/fights/ArenaClient.java"
# A client bean given the channel Quarkus builds for the client named "arena".
CLIENT = """\
package org.acme.fights;

import io.quarkus.grpc.GrpcClient;
import jakarta.enterprise.context.ApplicationScoped;

@ApplicationScoped
public class ArenaClient {
  private final Arenas arenas;

  public ArenaClient(@GrpcClient("arena") Arenas arenas) {
    this.arenas = arenas;
  }

  public Uni<Arena> pick() {
    return arenas.pick(PickRequest.newBuilder().build());
  }
}
"""
FIELD_CLIENT = """\
package org.acme.fights;

import io.quarkus.grpc.GrpcClient;

public class ArenaResource {
  @GrpcClient
  MutinyArenasGrpc.MutinyArenasStub arena;
}
"""
SETTINGS = "quarkus.grpc.clients.arena.host=localhost\nquarkus.grpc.clients.arena.port=9001\n"


def _resolved_channels(client: str, settings: str) -> list[object]:
    modules = [
        parse_java(CLIENT_PATH, client.encode()),
        parse_settings(f"{RESOURCES}/application.properties", settings.encode()),
    ]
    assign_projects(modules)
    return [channel.target for channel in resolve_imports(modules)[0].channels]


def test_a_grpc_client_is_a_channel_at_its_annotation_to_the_settings_host_and_port() -> None:
    (channel,) = parse_java(CLIENT_PATH, CLIENT.encode()).channels
    assert (channel.loc.line, channel.loc.column) == (10, 22) and channel.long_lived
    assert channel.factory == "Quarkus's @GrpcClient('arena')"
    host = EnvRef("QUARKUS_GRPC_CLIENTS_ARENA_HOST", "localhost")
    port = EnvRef("QUARKUS_GRPC_CLIENTS_ARENA_PORT", "9001")
    assert _resolved_channels(CLIENT, SETTINGS) == [EnvText((host, ":", port))]


def test_a_bare_grpc_client_is_named_by_its_field_and_has_the_extensions_defaults() -> None:
    (channel,) = parse_java(CLIENT_PATH, FIELD_CLIENT.encode()).channels
    assert channel.factory == "Quarkus's @GrpcClient('arena')"
    host = EnvRef("QUARKUS_GRPC_CLIENTS_ARENA_HOST", "localhost")
    port = EnvRef("QUARKUS_GRPC_CLIENTS_ARENA_PORT", "9000")
    assert _resolved_channels(FIELD_CLIENT, "quarkus.http.port=8080\n") == [
        EnvText((host, ":", port))
    ]


def test_another_frameworks_grpc_client_annotation_makes_no_channel() -> None:
    other = CLIENT.replace("io.quarkus.grpc.GrpcClient", "com.acme.rpc.GrpcClient")
    assert parse_java(CLIENT_PATH, other.encode()).channels == []


CLIENT_DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fights
spec:
  selector:
    matchLabels: {app: fights}
  template:
    metadata:
      labels: {app: fights}
    spec:
      containers:
        - name: fights
          image: registry.example/fights:1.0
          env:
            - {name: QUARKUS_GRPC_CLIENTS_ARENA_HOST, value: backend}
            - {name: QUARKUS_GRPC_CLIENTS_ARENA_PORT, value: "50051"}
"""


def test_a_grpc_client_the_deployment_points_at_a_clusterip_service_is_klb102(
    tmp_path: Path,
) -> None:
    files = {
        CLIENT_PATH: CLIENT,
        f"{RESOURCES}/application.properties": SETTINGS,
        "fights/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": GRPC_SERVICE + BACKEND + CLIENT_DEPLOYMENT,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    # at the settings' host, the address to change; the annotation told with it
    assert finding.path.endswith(f"{RESOURCES}/application.properties") and finding.line == 1
    assert [(r.path.endswith(CLIENT_PATH), r.line) for r in finding.related][-1] == (True, 10)
    assert "'backend:50051'" in finding.text and finding.edits == ()
    local = CLIENT_DEPLOYMENT.split("          env:")[0]
    files["k8s.yaml"] = GRPC_SERVICE + BACKEND + local
    assert lint_files(tmp_path / "local", files, ["KLB102"]).findings == []


# A service class Quarkus serves: on the HTTP server's port when gRPC shares it, else on
# the separate gRPC server's.
SERVICE_PATH = "arena/src/main/java/org/acme/arena/ArenaService.java"
SERVICE = """\
package org.acme.arena;

import io.quarkus.grpc.GrpcService;
import io.smallrye.mutiny.Uni;

@GrpcService
public class ArenaService implements Arenas {
  @Override
  public Uni<Arena> pick(PickRequest request) {
    return Uni.createFrom().item(Arena.newBuilder().build());
  }
}
"""
SHARED = (
    "quarkus:\n  http:\n    port: 8089\n  grpc:\n    server:\n      use-separate-server: false\n"
)
ARENA = """\
apiVersion: v1
kind: Service
metadata:
  name: arena
spec:
  selector:
    app: arena
  ports:
    - name: http
      port: 80
      targetPort: PORT
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: arena
spec:
  replicas: 3
  selector:
    matchLabels: {app: arena}
  template:
    metadata:
      labels: {app: arena}
    spec:
      containers:
        - name: arena
          image: registry.example/arena:1.0
"""


@pytest.mark.parametrize(
    ("settings", "port"),
    [(SHARED, 8089), ("quarkus:\n  application:\n    name: arena\n", 9000)],
    ids=["on-the-http-port", "separate-server"],
)
def test_a_service_class_quarkus_serves_makes_the_port_it_listens_on_grpc(
    tmp_path: Path, settings: str, port: int
) -> None:
    files = {
        SERVICE_PATH: SERVICE,
        "arena/src/main/resources/application.yml": settings,
        "arena/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": ARENA.replace("PORT", str(port)),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert f"its code serves gRPC on {port}: ArenaService.java:6" in finding.message
    other = ARENA.replace("PORT", "7000")
    assert lint_files(tmp_path / "other", {**files, "k8s.yaml": other}, ["KLB101"]).findings == []


def test_quarkus_grpc_server_has_no_max_connection_age_unless_a_customizer_may_set_it(
    tmp_path: Path,
) -> None:
    files = {SERVICE_PATH: SERVICE, "arena/src/main/resources/application.yml": SHARED}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.path.endswith(SERVICE_PATH) and finding.line == 6
    assert finding.message == "Quarkus's gRPC server sets no maxConnectionAge"
    assert "ServerBuilderCustomizer" in finding.text
    customizer = (
        "package org.acme.arena;\n\nimport io.quarkus.grpc.api.ServerBuilderCustomizer;\n\n"
        "public class Ages implements ServerBuilderCustomizer<NettyServerBuilder> {}\n"
    )
    files["arena/src/main/java/org/acme/arena/Ages.java"] = customizer
    assert rules_of(lint_files(tmp_path / "custom", files, ["KLB201"]).findings) == []


# Datasources: the pools Quarkus's extensions make from the settings, which never retire
# a connection unless a max-lifetime is set.
VILLAINS = "villains/src/main/resources"


def _pools(files: dict[str, str], tmp_path: Path) -> list[tuple[str, int, str]]:
    found = lint_files(tmp_path, files, ["KLB203"]).findings
    return [(f.path.rsplit("/", 1)[-1], f.line, f.message) for f in found]


@pytest.mark.parametrize(
    ("settings", "found"),
    [
        (
            "quarkus.datasource.db-kind=postgresql\nquarkus.datasource.jdbc.telemetry=true\n",
            [
                (
                    "application.properties",
                    2,
                    "JDBC (Agroal)",
                    "quarkus.datasource.jdbc.max-lifetime",
                )
            ],
        ),
        (
            "quarkus:\n  datasource:\n    reactive:\n      url: postgresql://heroes-db:5432/h\n",
            [("application.yml", 4, "reactive", "quarkus.datasource.reactive.max-lifetime")],
        ),
        (
            'quarkus.datasource."users".jdbc.url=jdbc:postgresql://users-db/u\n',
            [
                (
                    "application.properties",
                    1,
                    "Agroal",
                    'quarkus.datasource."users".jdbc.max-lifetime',
                )
            ],
        ),
        (
            "quarkus.datasource.jdbc.url=jdbc:postgresql://db/v\nquarkus.datasource.jdbc.max-lifetime=30M\n",
            [],
        ),
        (
            "quarkus.datasource.jdbc.url=jdbc:postgresql://db/v\n%prod.quarkus.datasource.jdbc.max-lifetime=1H\n",
            [],
        ),
        (  # a local default: the key's environment variable is the deployment's URL
            "quarkus.datasource.jdbc.url=jdbc:postgresql://localhost:5432/v\n",
            [("application.properties", 1, "JDBC", "quarkus.datasource.jdbc.max-lifetime")],
        ),
        (
            "quarkus.datasource.db-kind=postgresql\nquarkus.datasource.devservices.enabled=true\n",
            [],
        ),
        ("quarkus.datasource.jdbc=false\nquarkus.datasource.jdbc.url=jdbc:postgresql://db/v\n", []),
        (  # a profile a cluster runs counts; dev mode's and the tests' settings do not
            "%dev.quarkus.datasource.jdbc=false\n%test.quarkus.datasource.reactive.url=x\n"
            "%prod.quarkus.datasource.jdbc.url=jdbc:postgresql://db/v\n",
            [("application.properties", 3, "JDBC", "quarkus.datasource.jdbc.max-lifetime")],
        ),
    ],
    ids=[
        "jdbc",
        "reactive-yaml",
        "named",
        "lifetime",
        "profile-lifetime",
        "local-default",
        "no-pool",
        "off",
        "prod-profile",
    ],
)
def test_a_quarkus_datasource_pool_with_no_max_lifetime_is_klb203(
    tmp_path: Path, settings: str, found: list[tuple[str, int, str, str]]
) -> None:
    name = "application.yml" if settings.startswith("quarkus:") else "application.properties"
    got = _pools({f"{VILLAINS}/{name}": settings}, tmp_path)
    assert [(path, line) for path, line, _ in got] == [(p, line) for p, line, _, _ in found]
    for (_, _, message), (_, _, kind, key) in zip(got, found, strict=True):
        assert kind in message and f"no {key} (" in message


def test_a_max_lifetime_a_profiles_settings_file_sets_leaves_the_pool_unjudged(
    tmp_path: Path,
) -> None:
    base = {f"{VILLAINS}/application.properties": "quarkus.datasource.jdbc.url=${DB_URL}\n"}
    assert len(_pools(base, tmp_path)) == 1
    profile = {
        f"{VILLAINS}/application-prod.properties": "quarkus.datasource.jdbc.max-lifetime=1H\n"
    }
    assert _pools({**base, **profile}, tmp_path / "prod") == []


def test_a_datasource_url_the_environment_overrides_is_read_without_its_jdbc_prefix() -> None:
    facts = parse_settings(
        f"{VILLAINS}/application.properties",
        b"quarkus.datasource.jdbc.url=jdbc:postgresql://villains-db:5432/v\n",
    )
    (pool,) = facts.db_pools
    assert pool.url == EnvRef("QUARKUS_DATASOURCE_JDBC_URL", "postgresql://villains-db:5432/v")
    named = b'quarkus.datasource."users".reactive.url=vertx-reactive:postgresql://users-db/u\n'
    (pool,) = parse_settings(f"{VILLAINS}/application.properties", named).db_pools
    assert pool.url == EnvRef("QUARKUS_DATASOURCE__USERS__REACTIVE_URL", "postgresql://users-db/u")


# Quarkus's Kubernetes extension loads a service's settings from a ConfigMap with
# `envFrom`, its keys written as the settings' own (`quarkus.grpc.clients.arena.host`).
CONFIG_MAP_DEPLOYMENT = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: fights-config
data:
  quarkus.grpc.clients.arena.host: backend
  quarkus.grpc.clients.arena.port: "50051"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: fights
spec:
  selector:
    matchLabels: {app: fights}
  template:
    metadata:
      labels: {app: fights}
    spec:
      containers:
        - name: fights
          image: registry.example/fights:1.0
          envFrom:
            - configMapRef:
                name: fights-config
"""


def test_a_grpc_client_the_deployment_loads_from_a_config_map_is_klb102(tmp_path: Path) -> None:
    files = {
        CLIENT_PATH: CLIENT,
        f"{RESOURCES}/application.properties": SETTINGS,
        "fights/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": GRPC_SERVICE + BACKEND + CONFIG_MAP_DEPLOYMENT,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("application.properties") and finding.line == 1
    assert "'backend:50051'" in finding.text
    assert "loads them from quarkus.grpc.clients.arena.host in ConfigMap fights-config" in (
        finding.text
    )
    # `env` overrides what `envFrom` loads
    local = CONFIG_MAP_DEPLOYMENT + (
        "          env:\n            - {name: QUARKUS_GRPC_CLIENTS_ARENA_HOST, value: localhost}\n"
    )
    files["k8s.yaml"] = GRPC_SERVICE + BACKEND + local
    assert lint_files(tmp_path / "env", files, ["KLB102"]).findings == []


# A client whose host only the packaged application's profile gives (`%prod.`), two
# classes injecting it, and a Service it reaches by that host (the extension's port).
PROD_SETTINGS = (
    "%dev.quarkus.grpc.clients.arena.host=localhost\n"
    "%prod.quarkus.grpc.clients.arena.host=backend\n"
    "quarkus.grpc.clients.arena.port=50051\n"
)
SECOND_PATH = "fights/src/main/java/org/acme/fights/ArenaHealth.java"


def _klb102(tmp_path: Path, settings: str, **more: str) -> list[tuple[str, int]]:
    files = {
        CLIENT_PATH: CLIENT,
        f"{RESOURCES}/application.properties": settings,
        "k8s.yaml": GRPC_SERVICE + BACKEND,
        **more,
    }
    found = lint_files(tmp_path, files, ["KLB102"]).findings
    return [(f.path.rsplit("/", 1)[-1], f.line, len(f.related)) for f in found]


def test_the_prod_profiles_host_is_the_one_a_pod_dials_reported_once_per_client_name(
    tmp_path: Path,
) -> None:
    second = CLIENT.replace("ArenaClient", "ArenaHealth")
    found = _klb102(tmp_path, PROD_SETTINGS, **{SECOND_PATH: second})
    # one channel per name: the Service and both injection points told with it
    assert found == [("application.properties", 2, 3)]
    local = PROD_SETTINGS.replace("%prod.", "%dev,test.")  # no pod's profiles
    assert _klb102(tmp_path / "dev", local) == []
    # a profile the deployment may choose gives another host: not known which
    chosen = PROD_SETTINGS + "%staging.quarkus.grpc.clients.arena.host=elsewhere\n"
    assert _klb102(tmp_path / "staging", chosen) == []


def test_a_client_stork_or_xds_resolves_is_not_pinned_by_kube_proxy(tmp_path: Path) -> None:
    assert len(_klb102(tmp_path, PROD_SETTINGS)) == 1
    stork = PROD_SETTINGS + "quarkus.grpc.clients.arena.name-resolver=stork\n"
    assert _klb102(tmp_path / "stork", stork) == []
    xds = PROD_SETTINGS + "quarkus.grpc.clients.arena.xds.enabled=true\n"
    assert _klb102(tmp_path / "xds", xds) == []


def test_a_settings_client_no_code_injects_is_no_channel() -> None:
    facts = parse_settings(f"{RESOURCES}/application.properties", PROD_SETTINGS.encode())
    assert [c.loc.line for c in facts.channels] == [2]
    other = parse_java(CLIENT_PATH, CLIENT.replace('"arena"', '"ledger"').encode())
    modules = [facts, other]
    assign_projects(modules)
    from k8slb.languages.java.parse_quarkus import settle

    resolved = resolve_imports(modules)
    settle(resolved)
    assert [len(m.channels) for m in resolved] == [0, 1]


def test_the_environment_form_of_a_quoted_client_name_sets_its_host(tmp_path: Path) -> None:
    quoted = CLIENT_DEPLOYMENT.replace("CLIENTS_ARENA_", "CLIENTS__ARENA__")
    files = {
        CLIENT_PATH: CLIENT,
        f"{RESOURCES}/application.properties": "quarkus.http.port=8080\n",
        "fights/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": GRPC_SERVICE + BACKEND + quoted,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert "'backend:50051'" in finding.text
    # from a ConfigMap that `envFrom` loads, too
    loaded = CONFIG_MAP_DEPLOYMENT.replace(
        "quarkus.grpc.clients.arena.host", "QUARKUS_GRPC_CLIENTS__ARENA__HOST"
    ).replace("quarkus.grpc.clients.arena.port", "QUARKUS_GRPC_CLIENTS__ARENA__PORT")
    files["k8s.yaml"] = GRPC_SERVICE + BACKEND + loaded
    (finding,) = lint_files(tmp_path / "loaded", files, ["KLB102"]).findings
    assert "'backend:50051'" in finding.text
