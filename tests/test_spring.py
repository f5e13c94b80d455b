"""Spring Boot services whose gRPC servers and channels grpc-spring-boot-starter (or Spring
gRPC) builds from their settings: `application.properties` and `application.yml` under
`src/main/resources/` are read for them, judged by KLB201, KLB204, KLB102 and KLB103 in
the settings' own words."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.facts import UNKNOWN, EnvRef, EnvText, Setting
from k8slb.code.imported import resolve_imports
from k8slb.code.projects import assign_projects
from k8slb.code.syntax_trees import MAX_TREE_DEPTH
from k8slb.languages import language_of
from k8slb.languages.java.parse import parse as parse_java
from k8slb.languages.java.parse_spring import duration_ms, parse
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files, rules_of

RESOURCES = "svc/src/main/resources"


@pytest.mark.parametrize(
    ("path", "language"),
    [
        (f"{RESOURCES}/application.properties", "spring"),
        (f"{RESOURCES}/application-prod.yml", "spring"),
        (f"{RESOURCES}/config/bootstrap.yaml", "spring"),
        ("deploy/application.yaml", None),  # an Argo CD Application, say: a manifest
        (f"{RESOURCES}/logback.xml", None),
    ],
)
def test_settings_are_told_by_where_they_are(path: str, language: str | None) -> None:
    found = language_of(path)
    assert (found.name if found else None) == language


@pytest.mark.parametrize(
    ("text", "ms"),
    [("30s", 30_000), ("5m", 300_000), ("300", 300_000), ("PT5M", 300_000), ("500ms", 500)],
)
def test_durations_are_read_as_spring_reads_them(text: str, ms: int) -> None:
    assert duration_ms(text) == ms


PROPERTIES = """\
spring.application.name=orders
grpc.server.port=9090
grpc.server.max-connection-age=5m
grpc.server.maxConnectionAgeGrace=30s
"""


def test_a_server_and_its_options_from_properties() -> None:
    facts = parse(f"{RESOURCES}/application.properties", PROPERTIES.encode())
    (server,) = facts.servers
    assert server.loc.line == 2 and server.options.complete
    assert server.options.get("grpc.max_connection_age_ms").value == 300_000
    assert server.options.get("grpc.max_connection_age_grace_ms").value == 30_000


@pytest.mark.parametrize(
    ("settings", "found"),
    [
        (PROPERTIES, []),
        ("grpc.server.port=9090\n", ["KLB201"]),
        ("grpc.server.port=9090\ngrpc.server.max-connection-age=60\n", ["KLB204"]),
        ("grpc.server.port=-1\n", []),  # in-process only
        ("spring.application.name=orders\n", []),
    ],
    ids=["both", "none", "age-only", "disabled", "no-grpc"],
)
def test_the_starters_server_is_judged_by_its_settings(
    tmp_path: Path, settings: str, found: list[str]
) -> None:
    files = {f"{RESOURCES}/application.properties": settings}
    assert rules_of(lint_files(tmp_path, files, ["KLB201", "KLB204"]).findings) == found


@pytest.mark.parametrize(
    ("grace", "found"),
    [("0", ["KLB404"]), ("0s", ["KLB404"]), ("20s", []), ("-1", []), (None, [])],
)
def test_a_shutdown_grace_period_of_zero_cuts_the_calls_in_flight(
    tmp_path: Path, grace: str | None, found: list[str]
) -> None:
    settings = PROPERTIES + (f"grpc.server.shutdown-grace-period={grace}\n" if grace else "")
    files = {f"{RESOURCES}/application.properties": settings}
    findings = lint_files(tmp_path, files, ["KLB404"]).findings
    assert rules_of(findings) == found
    if findings:
        assert findings[0].line == 5 and not findings[0].fix.available
        assert findings[0].message == "a shutdown grace period of 0 aborts every call in flight"


def test_the_finding_speaks_the_settings(tmp_path: Path) -> None:
    files = {f"{RESOURCES}/application.properties": "grpc.server.port=9090\n"}
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.message == "the starter's gRPC server sets no grpc.server.max-connection-age"
    assert "set grpc.server.max-connection-age=5m and" in finding.text
    assert not finding.fix.available


YAML = """\
grpc:
  client:
    backend:
      address: static://${BACKEND_HOST:backend}:50051
      negotiation-type: plaintext
"""
MANIFESTS = GRPC_SERVICE + BACKEND  # a gRPC Service on a ClusterIP, and its 3 pods


def test_a_channel_from_yaml_with_an_environment_placeholder() -> None:
    (channel,) = parse(f"{RESOURCES}/application.yml", YAML.encode()).channels
    assert channel.loc.line == 4 and channel.long_lived
    assert channel.target == EnvRef("BACKEND_HOST", "backend", "", ":50051")
    assert channel.default_scheme == "passthrough"
    assert channel.options.get("grpc.lb_policy_name").value == "round_robin"


def test_a_static_address_of_a_clusterip_service_is_klb102(tmp_path: Path) -> None:
    files = {f"{RESOURCES}/application.yml": YAML, "k8s.yaml": MANIFESTS}
    (finding,) = lint_files(tmp_path, files, ["KLB102", "KLB103"]).findings
    assert finding.rule == "KLB102" and finding.line == 4


WHOLE_FROM_ENVIRONMENT = """\
grpc:
  client:
    backend:
      address: ${BACKEND_ADDRESS:static://localhost:50051}
      negotiation-type: plaintext
"""


def _orders(env: str) -> str:
    """The Deployment that runs the Spring service (image built from svc/Dockerfile)."""
    return (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
        "  selector:\n    matchLabels: {app: orders}\n  template:\n    metadata:\n"
        "      labels: {app: orders}\n    spec:\n      containers:\n        - name: orders\n"
        f"          image: registry.example/svc:1.0\n{env}"
    )


@pytest.mark.parametrize(
    ("value", "found"),
    [
        ("static://backend:50051", ["KLB102"]),  # one address of the ClusterIP, kept
        ("dns:///backend:50051", ["KLB102"]),  # every address of a ClusterIP: one
        ("discovery:///backend", []),  # a registry's resolver, not kube-proxy
        (None, []),  # the default: localhost
    ],
    ids=["static", "dns", "discovery", "unset"],
)
def test_an_address_a_placeholder_gives_whole_is_judged_with_the_containers_value(
    tmp_path: Path, value: str | None, found: list[str]
) -> None:
    """`${BACKEND_ADDRESS:static://localhost:50051}`: the scheme is the environment's."""
    env = f"          env:\n            - {{name: BACKEND_ADDRESS, value: '{value}'}}\n"
    files = {
        f"{RESOURCES}/application.yml": WHOLE_FROM_ENVIRONMENT,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": MANIFESTS + _orders(env if value else ""),
    }
    findings = lint_files(tmp_path, files, ["KLB102", "KLB103"]).findings
    assert rules_of(findings) == found
    assert all(f.line == 4 for f in findings)


def test_the_starters_round_robin_default_is_not_pick_first(tmp_path: Path) -> None:
    headless = MANIFESTS.replace("spec:\n  selector", "spec:\n  clusterIP: None\n  selector", 1)
    dns = YAML.replace("static://${BACKEND_HOST:backend}", "dns:///backend")
    files = {f"{RESOURCES}/application.yml": dns, "k8s.yaml": headless}
    assert lint_files(tmp_path, files, ["KLB102", "KLB103"]).findings == []
    pick_first = dns + "      default-load-balancing-policy: pick_first\n"
    files[f"{RESOURCES}/application.yml"] = pick_first
    found = lint_files(tmp_path / "pf", files, ["KLB102", "KLB103"]).findings
    assert rules_of(found) == ["KLB103"]


def test_a_profile_or_a_configurer_may_set_what_the_base_settings_do_not(
    tmp_path: Path,
) -> None:
    """Which profile runs is the deployment's choice, and a GrpcServerConfigurer bean can
    set the builder's options in code: k8slb says nothing rather than guess."""
    base = {f"{RESOURCES}/application.properties": "grpc.server.port=9090\n"}
    profile = {
        f"{RESOURCES}/application-prod.yml": "grpc:\n  server:\n    max-connection-age: 5m\n"
    }
    assert lint_files(tmp_path / "p", {**base, **profile}, ["KLB201"]).findings == []
    configurer = {
        "svc/src/main/java/com/acme/GrpcConfig.java": (
            "package com.acme;\n\nimport io.grpc.netty.NettyServerBuilder;\n"
            "import net.devh.boot.grpc.server.serverfactory.GrpcServerConfigurer;\n\n"
            "class GrpcConfig {\n  GrpcServerConfigurer ages() {\n"
            "    return b -> ((NettyServerBuilder) b).maxConnectionAge(5, "
            "java.util.concurrent.TimeUnit.MINUTES);\n  }\n}\n"
        )
    }
    assert lint_files(tmp_path / "c", {**base, **configurer}, ["KLB201"]).findings == []


def test_a_yaml_settings_file_that_does_not_read_is_klb001(tmp_path: Path) -> None:
    files = {f"{RESOURCES}/application.yml": "grpc:\n  server: [port: 9090\n"}
    (finding,) = lint_files(tmp_path, files).findings
    assert finding.rule == "KLB001"


# -- values Spring injects into the code: `@Value("${key:default}")` -------------------

INJECTED = """\
package com.acme;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import org.springframework.beans.factory.annotation.Value;

public class BackendClient {
  @Value("${backend.address:backend:50051}")
  private String address;

  private ManagedChannel channel() {
    return ManagedChannelBuilder.forTarget(address).usePlaintext().build();
  }
}
"""
CLIENT_PATH = "svc/src/main/java/com/acme/BackendClient.java"


def injected_target(settings: dict[str, str], code: str = INJECTED) -> object:
    """The client's target once the project's settings files are read with it."""
    modules = [parse_java(CLIENT_PATH, code.encode())]
    modules += [parse(f"{RESOURCES}/{name}", text.encode()) for name, text in settings.items()]
    assign_projects(modules)
    (resolved, *_) = resolve_imports(modules)
    (channel,) = resolved.channels
    return channel.target


def test_an_injected_field_is_a_setting_of_the_project_until_its_settings_are_read() -> None:
    facts = parse_java(CLIENT_PATH, INJECTED.encode())
    (channel,) = facts.channels
    assert channel.target == Setting(
        "spring", "backend.address", "BACKEND_ADDRESS", "backend:50051"
    )
    assert facts.deferred


@pytest.mark.parametrize(
    ("settings", "target"),
    [
        ({}, EnvRef("BACKEND_ADDRESS", "backend:50051")),
        # a plain value: Spring's environment variable for the key still overrides it
        (
            {"application.properties": "backend.address=dns:///backend:50051\n"},
            EnvRef("BACKEND_ADDRESS", "dns:///backend:50051"),
        ),
        # keys compared as Spring binds them
        (
            {"application.yml": "Backend:\n  ADDRESS: backend.shop:50051\n"},
            EnvRef("BACKEND_ADDRESS", "backend.shop:50051"),
        ),
        # the file reads a variable of its own
        (
            {"application.yml": "backend:\n  address: ${CART_ADDR:cart:7070}\n"},
            EnvRef("CART_ADDR", "cart:7070"),
        ),
        # profiles that disagree: which one runs is the deployment's choice
        (
            {
                "application.properties": "backend.address=backend:50051\n",
                "application-prod.properties": "backend.address=backend.prod:50051\n",
            },
            UNKNOWN,
        ),
    ],
    ids=["default", "plain", "relaxed", "placeholder", "profiles"],
)
def test_an_injected_value_comes_from_the_projects_settings(
    settings: dict[str, str], target: object
) -> None:
    assert injected_target(settings) == target


def test_an_injected_constructor_parameter_and_an_expression() -> None:
    by_parameter = INJECTED.replace(
        '  @Value("${backend.address:backend:50051}")\n  private String address;\n',
        "  private final String address;\n\n"
        '  public BackendClient(@Value(value = "dns:///${backend.host}:50051") String host) {\n'
        "    this.address = host;\n  }\n",
    ).replace("forTarget(address)", "forTarget(host)")
    assert injected_target({}, by_parameter) == UNKNOWN  # a parameter of another method
    in_constructor = by_parameter.replace(
        "    this.address = host;\n",
        "    this.channel = ManagedChannelBuilder.forTarget(host).usePlaintext().build();\n",
    ).replace(
        "  private ManagedChannel channel() {\n"
        "    return ManagedChannelBuilder.forTarget(host).usePlaintext().build();\n  }\n",
        "  private final ManagedChannel channel;\n",
    )
    assert injected_target({}, in_constructor) == EnvRef("BACKEND_HOST", None, "dns:///", ":50051")
    spel = INJECTED.replace("${backend.address:backend:50051}", "#{config.address}")
    assert injected_target({}, spel) == UNKNOWN


def test_an_injected_address_of_a_clusterip_service_is_klb102(tmp_path: Path) -> None:
    files = {
        CLIENT_PATH: INJECTED,
        f"{RESOURCES}/application.properties": "backend.address=backend:50051\n",
        "k8s.yaml": MANIFESTS,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(CLIENT_PATH) and finding.line == 12


# A service class the starter serves: the server is the starter's, made with no builder in
# the code and, when the settings name none, on the starter's default port.
SERVICE_PATH = "svc/src/main/java/com/acme/orders/OrdersService.java"
SERVICE = """\
package com.acme.orders;

import io.grpc.stub.StreamObserver;
import net.devh.boot.grpc.server.service.GrpcService;

@GrpcService
public class OrdersService extends OrdersGrpc.OrdersImplBase {
  @Override
  public void place(PlaceRequest request, StreamObserver<PlaceReply> reply) {
    reply.onNext(PlaceReply.newBuilder().build());
    reply.onCompleted();
  }
}
"""
LOGNET_SERVICE = SERVICE.replace(
    "net.devh.boot.grpc.server.service.GrpcService", "org.lognet.springboot.grpc.GRpcService"
).replace("@GrpcService", "@GRpcService")
NAMED = f"{RESOURCES}/application.yml"


def test_a_service_class_the_starter_serves_is_read_with_its_starter() -> None:
    (found,) = parse_java(SERVICE_PATH, SERVICE.encode()).starter_services
    assert found[0] == "grpc-spring-boot-starter" and (found[1].line, found[1].column) == (6, 1)
    (found,) = parse_java(SERVICE_PATH, LOGNET_SERVICE.encode()).starter_services
    assert found[0] == "LogNet"
    quarkus = SERVICE.replace("net.devh.boot.grpc.server.service", "io.quarkus.grpc")
    (found,) = parse_java(SERVICE_PATH, quarkus.encode()).starter_services
    assert found[0] == "Quarkus"  # its own server (test_quarkus.py)
    other = SERVICE.replace("net.devh.boot.grpc.server.service", "com.acme.grpc")
    assert parse_java(SERVICE_PATH, other.encode()).starter_services == []


@pytest.mark.parametrize(
    ("service", "settings", "found"),
    [
        (SERVICE, "spring:\n  application:\n    name: orders\n", ["KLB201"]),
        (SERVICE, "grpc:\n  server:\n    max-connection-age: 5m\n", ["KLB204"]),
        (LOGNET_SERVICE, "grpc:\n  port: 7000\n", ["KLB201"]),
        (LOGNET_SERVICE, "grpc:\n  netty-server:\n    max-connection-age: 5m\n", ["KLB204"]),
        (LOGNET_SERVICE, "grpc:\n  enabled: false\n", []),
        (SERVICE, "grpc:\n  server:\n    port: -1\n", []),
    ],
    ids=["defaults", "settings-age", "lognet-port", "lognet-age", "lognet-off", "in-process"],
)
def test_a_starters_service_class_runs_its_server_as_the_settings_make_it(
    tmp_path: Path, service: str, settings: str, found: list[str]
) -> None:
    files = {SERVICE_PATH: service, NAMED: settings}
    assert rules_of(lint_files(tmp_path, files, ["KLB201", "KLB204"]).findings) == found


def test_the_servers_finding_is_at_the_annotation_in_its_starters_words(tmp_path: Path) -> None:
    files = {SERVICE_PATH: SERVICE, NAMED: "spring:\n  application:\n    name: orders\n"}
    (finding,) = lint_files(tmp_path / "devh", files, ["KLB201"]).findings
    assert (finding.path.endswith(SERVICE_PATH), finding.line) == (True, 6)
    assert finding.message == "the starter's gRPC server sets no grpc.server.max-connection-age"
    files = {SERVICE_PATH: LOGNET_SERVICE, NAMED: "grpc:\n  port: 7000\n"}
    (finding,) = lint_files(tmp_path / "lognet", files, ["KLB201"]).findings
    assert finding.message == "LogNet's gRPC server sets no grpc.netty-server.max-connection-age"
    assert "set grpc.netty-server.max-connection-age=5m and" in finding.text


UNNAMED_PORT_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: orders
spec:
  selector:
    app: orders
  ports:
    - port: 80
      targetPort: PORT
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: 3
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: registry.example/shop/svc:1.0
"""


@pytest.mark.parametrize(
    ("service", "settings", "port"),
    [(SERVICE, "spring:\n  application:\n    name: orders\n", 9090), (LOGNET_SERVICE, "", 6565)],
    ids=["starter-default", "lognet-default"],
)
def test_the_starters_default_port_makes_an_unnamed_service_port_grpc(
    tmp_path: Path, service: str, settings: str, port: int
) -> None:
    files = {
        SERVICE_PATH: service,
        NAMED: settings or "spring:\n  main:\n    banner-mode: off\n",
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": UNNAMED_PORT_SERVICE.replace("PORT", str(port)),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert f"its code serves gRPC on {port}: OrdersService.java:6" in finding.message
    other = UNNAMED_PORT_SERVICE.replace("PORT", "8080")
    assert lint_files(tmp_path / "http", {**files, "k8s.yaml": other}, ["KLB101"]).findings == []
    # the port key's environment variable, set by the Deployment, moves the server there
    variable = "GRPC_SERVER_PORT" if port == 9090 else "GRPC_PORT"
    moved = other + f"          env:\n            - {{name: {variable}, value: '8080'}}\n"
    (finding,) = lint_files(tmp_path / "env", {**files, "k8s.yaml": moved}, ["KLB101"]).findings
    assert "its code serves gRPC on 8080" in finding.message


# A channel whose host a @ConfigurationProperties class holds, bound by Spring from the
# settings files or the environment, and read through its getter.
PROPERTIES_PATH = "svc/src/main/java/com/acme/config/BackendProperties.java"
BOUND_PROPERTIES = """\
package com.acme.config;

import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties(prefix = "backend")
public class BackendProperties {
  private String host = "localhost";
  private int port = 50051;

  public String getHost() { return host; }
  public void setHost(String host) { this.host = host; }
  public int getPort() { return port; }
  public void setPort(int port) { this.port = port; }
}
"""
BOUND_CLIENT = """\
package com.acme;

import com.acme.config.BackendProperties;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import org.springframework.stereotype.Component;

@Component
public class BackendClient {
  private final ManagedChannel channel;

  public BackendClient(BackendProperties props) {
    this.channel = ManagedChannelBuilder.forAddress(props.getHost(), 50051)
        .usePlaintext()
        .build();
  }
}
"""


@pytest.mark.parametrize(
    ("settings", "properties", "target"),
    [
        ({}, BOUND_PROPERTIES, EnvRef("BACKEND_HOST", "localhost", "", ":50051")),
        (
            {"application.yml": "backend:\n  host: ${INVENTORY_HOST:backend}\n"},
            BOUND_PROPERTIES,
            EnvRef("INVENTORY_HOST", "backend", "", ":50051"),
        ),
        (
            {},
            'package com.acme.config;\n\n@ConfigurationProperties("backend")\n'
            "public record BackendProperties(String host, int port) {}\n",
            EnvRef("BACKEND_HOST", None, "", ":50051"),
        ),
        ({}, BOUND_PROPERTIES.replace("@ConfigurationProperties", "@Deprecated"), UNKNOWN),
    ],
    ids=["class-default", "settings", "record", "not-bound"],
)
def test_a_host_from_a_bound_properties_class_is_its_setting(
    settings: dict[str, str], properties: str, target: object
) -> None:
    client = BOUND_CLIENT
    if "record" in properties:
        client = client.replace("props.getHost()", "props.host()")
    modules = [
        parse_java(CLIENT_PATH, client.encode()),
        parse_java(PROPERTIES_PATH, properties.encode()),
    ]
    modules += [parse(f"{RESOURCES}/{name}", text.encode()) for name, text in settings.items()]
    assign_projects(modules)
    (resolved, *_) = resolve_imports(modules)
    (channel,) = resolved.channels
    assert channel.target == target


def test_a_bound_host_set_by_the_deployment_to_a_clusterip_service_is_klb102(
    tmp_path: Path,
) -> None:
    deployment = (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
        "  selector:\n    matchLabels: {app: orders}\n  template:\n    metadata:\n"
        "      labels: {app: orders}\n    spec:\n      containers:\n        - name: orders\n"
        "          image: registry.example/svc:1.0\n          env:\n"
        "            - {name: BACKEND_HOST, value: backend}\n"
    )
    files = {
        CLIENT_PATH: BOUND_CLIENT,
        PROPERTIES_PATH: BOUND_PROPERTIES,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": MANIFESTS + deployment,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(CLIENT_PATH) and finding.line == 13


# A JDK HttpClient kept in a field of a class Spring does not make: its request URL is a
# final field its constructor sets from a parameter, which a @Bean method of another file
# fills from the settings (`@Value`).
TOKEN_PATH = "svc/src/main/java/com/acme/auth/TokenClient.java"
TOKEN_CLIENT = """\
package com.acme.auth;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class TokenClient {
  private final HttpClient http = HttpClient.newBuilder().build();
  private final String tokenUri;

  public TokenClient(String tokenUri, String clientId) {
    this.tokenUri = tokenUri;
  }

  String fetch() throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(tokenUri)).build();
    return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
  }
}
"""
AUTH_CONFIG_PATH = "svc/src/main/java/com/acme/auth/AuthConfig.java"
AUTH_CONFIG = """\
package com.acme.auth;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class AuthConfig {
  @Bean
  TokenClient tokenClient(
      @Value("${acme.auth.token-uri:}") String tokenUri,
      @Value("${acme.auth.client-id:}") String clientId) {
    return new TokenClient(tokenUri, clientId);
  }
}
"""
TOKEN_SETTINGS = "acme:\n  auth:\n    token-uri: ${AUTH_TOKEN_URI:http://localhost:8080/token}\n"


def _token_urls(config: str, settings: str = TOKEN_SETTINGS) -> list[object]:
    modules = [
        parse_java(TOKEN_PATH, TOKEN_CLIENT.encode()),
        parse_java(AUTH_CONFIG_PATH, config.encode()),
        parse(f"{RESOURCES}/application.yml", settings.encode()),
    ]
    assign_projects(modules)
    return [url for url, _ in resolve_imports(modules)[0].urls]


def test_a_field_a_constructor_keeps_is_what_the_projects_constructions_pass() -> None:
    expected = EnvRef("AUTH_TOKEN_URI", "http://localhost:8080/token")
    assert _token_urls(AUTH_CONFIG) == [expected]
    # a construction with another constructor's arguments says nothing of this one's
    other = AUTH_CONFIG.replace("new TokenClient(tokenUri, clientId)", "new TokenClient(tokenUri)")
    assert _token_urls(other) == [UNKNOWN]


def test_a_kept_http_client_sending_to_an_injected_service_url_is_klb202(tmp_path: Path) -> None:
    deployment = (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
        "  selector:\n    matchLabels: {app: orders}\n  template:\n    metadata:\n"
        "      labels: {app: orders}\n    spec:\n      containers:\n        - name: orders\n"
        "          image: registry.example/svc:1.0\n          env:\n"
        "            - {name: AUTH_TOKEN_URI, value: 'http://keycloak:8080/token'}\n"
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: keycloak\nspec:\n"
        "  selector: {app: keycloak}\n  ports: [{port: 8080}]\n"
    )
    files = {
        TOKEN_PATH: TOKEN_CLIENT,
        AUTH_CONFIG_PATH: AUTH_CONFIG,
        f"{RESOURCES}/application.yml": TOKEN_SETTINGS,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": deployment,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB202"]).findings
    assert finding.path.endswith(TOKEN_PATH) and finding.line == 9
    assert "'http://keycloak:8080/token'" in finding.text


# The same, with the port in an object the properties class holds (`ports.grpc`, bound to
# `getPorts().getGrpc()`), and the Deployment setting both as settings keys: Spring's
# relaxed binding reads `inventory.backend.host` in the environment as the property.
NESTED_PROPERTIES = """\
package com.acme.config;

import org.springframework.boot.context.properties.ConfigurationProperties;
import lombok.Data;

@ConfigurationProperties(prefix = "inventory.backend")
@Data
public class BackendProperties {
  private String host = "localhost";
  private Ports ports = new Ports();

  @Data
  public static class Ports {
    private int http = 8080;
    private int grpc;
  }
}
"""
NESTED_CLIENT = BOUND_CLIENT.replace("50051)", "props.getPorts().getGrpc())")


def test_a_port_of_an_object_a_bound_properties_class_holds_is_its_setting() -> None:
    modules = [
        parse_java(CLIENT_PATH, NESTED_CLIENT.encode()),
        parse_java(PROPERTIES_PATH, NESTED_PROPERTIES.encode()),
        parse(f"{RESOURCES}/application.yml", b"inventory.backend:\n  ports:\n    grpc: 6565\n"),
    ]
    assign_projects(modules)
    (resolved, *_) = resolve_imports(modules)
    (channel,) = resolved.channels
    assert channel.target == EnvText(
        (
            EnvRef("INVENTORY_BACKEND_HOST", "localhost"),
            ":",
            EnvRef("INVENTORY_BACKEND_PORTS_GRPC", "6565"),
        )
    )


def test_bound_properties_set_by_dotted_env_names_to_a_clusterip_service_are_klb102(
    tmp_path: Path,
) -> None:
    deployment = (
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
        "  selector:\n    matchLabels: {app: orders}\n  template:\n    metadata:\n"
        "      labels: {app: orders}\n    spec:\n      containers:\n        - name: orders\n"
        "          image: registry.example/svc:1.0\n          env:\n"
        "            - {name: inventory.backend.host, value: backend}\n"
        "            - {name: inventory.backend.ports.grpc, value: '50051'}\n"
    )
    files = {
        CLIENT_PATH: NESTED_CLIENT,
        PROPERTIES_PATH: NESTED_PROPERTIES,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": MANIFESTS + deployment,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(CLIENT_PATH) and finding.line == 13


@pytest.mark.parametrize("getters", [400, 60_000])
def test_a_chain_of_getters_past_the_budget_is_no_setting_and_no_crash(getters: int) -> None:
    """A getter of a getter is followed to a nested setting a few levels deep; a chain of
    400 is read in a loop with a budget, not a recursion that dies, and one of 60,000 (a
    hostile file) nests past what any file may and is left unread."""
    chain = "props" + ".getA()" * getters
    source = (
        "import io.grpc.ManagedChannelBuilder;\n"
        "class Main {\n  void m(Props props) {\n"
        f"    var c = ManagedChannelBuilder.forAddress({chain}, 50051).build();\n  }}\n}}\n"
    )
    facts = parse_java("src/main/java/Main.java", source.encode())
    if getters > MAX_TREE_DEPTH:
        assert facts.problem is not None and "nested more than" in facts.problem.message
        return
    assert facts.problem is None
    assert [channel.target for channel in facts.channels] == [UNKNOWN]


@pytest.mark.parametrize(
    "settings_file",
    ["bootstrap.yml", "application-kubernetes.yml"],
    ids=["bootstrap-only", "profile-only"],
)
def test_a_starters_server_set_only_by_the_environment_is_still_judged(
    tmp_path: Path, settings_file: str
) -> None:
    """A service whose settings files are a Spring Cloud bootstrap or one profile's, with
    no `grpc.server` block (its port comes from the environment or a config server): the
    starter still serves its annotated classes, on the port the environment gives."""
    files = {
        SERVICE_PATH: SERVICE,
        f"{RESOURCES}/{settings_file}": "spring:\n  application:\n    name: orders\n",
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": UNNAMED_PORT_SERVICE.replace("PORT", "9092")
        + "          env:\n            - {name: GRPC_SERVER_PORT, value: '9092'}\n",
    }
    found = lint_files(tmp_path, files, ["KLB201", "KLB101"]).findings
    assert sorted(rules_of(found)) == ["KLB101", "KLB201"]
    (served,) = [f for f in found if f.rule == "KLB101"]
    assert "its code serves gRPC on 9092: OrdersService.java:6" in served.message


# A bean given the starter's channel for the client named "backend", whose address the
# container's environment gives (Spring's relaxed binding of grpc.client.backend.address).
STARTER_CLIENT_PATH = "svc/src/main/java/com/acme/orders/Pricing.java"
STARTER_CLIENT = """\
package com.acme.orders;

import net.devh.boot.grpc.client.inject.GrpcClient;
import org.springframework.stereotype.Service;

@Service
public class Pricing {
  @GrpcClient("backend")
  private PricesGrpc.PricesBlockingStub prices;

  public Price quote(String sku) {
    return prices.quote(QuoteRequest.newBuilder().setSku(sku).build());
  }
}
"""
ORDERS = """\
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: orders-config
data:
  SPRING_PROFILES_ACTIVE: kubernetes
  GRPC_CLIENT_BACKEND_ADDRESS: "static://backend:50051"
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  selector:
    matchLabels: {app: orders}
  template:
    metadata:
      labels: {app: orders}
    spec:
      containers:
        - name: orders
          image: registry.example/shop/svc:1.0
          envFrom:
            - configMapRef:
                name: orders-config
"""


def _starter_client_files(settings: str, manifests: str) -> dict[str, str]:
    return {
        STARTER_CLIENT_PATH: STARTER_CLIENT,
        NAMED: settings,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": GRPC_SERVICE + BACKEND + manifests,
    }


def test_the_starters_grpc_client_is_a_channel_at_its_annotation_to_the_environments_address() -> (
    None
):
    (channel,) = parse_java(STARTER_CLIENT_PATH, STARTER_CLIENT.encode()).channels
    assert (channel.loc.line, channel.loc.column) == (8, 3) and channel.long_lived
    assert channel.factory == "the starter's @GrpcClient('backend')"
    modules = [
        parse_java(STARTER_CLIENT_PATH, STARTER_CLIENT.encode()),
        parse(NAMED, b"spring:\n  application:\n    name: orders\n"),
    ]
    assign_projects(modules)
    (resolved,) = resolve_imports(modules)[0].channels
    assert resolved.target == EnvRef("GRPC_CLIENT_BACKEND_ADDRESS", None)


def test_a_starters_client_the_environment_points_at_a_clusterip_service_is_klb102(
    tmp_path: Path,
) -> None:
    settings = "spring:\n  application:\n    name: orders\n"
    files = _starter_client_files(settings, ORDERS)
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(STARTER_CLIENT_PATH) and finding.line == 8
    assert "GRPC_CLIENT_BACKEND_ADDRESS in ConfigMap orders-config" in finding.text
    # the container's `env` overrides what `envFrom` loads: a local sidecar is no Service
    local = ORDERS + (
        "          env:\n"
        "            - {name: GRPC_CLIENT_BACKEND_ADDRESS, value: 'static://localhost:50051'}\n"
    )
    files = _starter_client_files(settings, local)
    assert lint_files(tmp_path / "env", files, ["KLB102"]).findings == []


def test_a_starters_client_whose_address_the_settings_give_is_told_once_in_the_settings(
    tmp_path: Path,
) -> None:
    settings = "grpc:\n  client:\n    backend:\n      address: static://backend:50051\n"
    files = _starter_client_files(settings, ORDERS)
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(NAMED) and finding.line == 4


def test_a_settings_files_server_listens_on_its_port_or_the_environments(tmp_path: Path) -> None:
    """`grpc.server.port` is where the settings file's server listens (9090 when unset),
    and the container's GRPC_SERVER_PORT moves it, as relaxed binding reads it."""
    files = {
        NAMED: "grpc:\n  server:\n    port: 9091\n",
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": UNNAMED_PORT_SERVICE.replace("PORT", "9091"),
    }
    (finding,) = lint_files(tmp_path, files, ["KLB101"]).findings
    assert "its code serves gRPC on 9091: application.yml:3" in finding.message
    files["k8s.yaml"] = UNNAMED_PORT_SERVICE.replace("PORT", "8443")
    assert lint_files(tmp_path / "http", files, ["KLB101"]).findings == []
    moved = (
        files["k8s.yaml"]
        + "          env:\n            - {name: GRPC_SERVER_PORT, value: '8443'}\n"
    )
    (finding,) = lint_files(tmp_path / "env", {**files, "k8s.yaml": moved}, ["KLB101"]).findings
    assert "its code serves gRPC on 8443" in finding.message


# A module's pom whose gRPC starter is commented out, and a parent pom with no gRPC either:
# the settings' `grpc.server.port` is left from a starter the module no longer builds with.
POM = """\
<project>
  <parent>
    <groupId>com.acme</groupId>
    <artifactId>shop</artifactId>
    <relativePath>../pom.xml</relativePath>
  </parent>
  <artifactId>svc</artifactId>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
<!--    <dependency>
      <groupId>GROUP</groupId>
      <artifactId>ARTIFACT</artifactId>
    </dependency> -->
  </dependencies>
</project>
"""
PARENT_POM = """\
<project>
  <artifactId>shop</artifactId>
  <dependencyManagement>
    <dependencies>
      <dependency>
        <groupId>org.springframework.grpc</groupId>
        <artifactId>spring-grpc-dependencies</artifactId>
      </dependency>
    </dependencies>
  </dependencyManagement>
  DEPENDENCIES
</project>
"""
DEVH = ("net.devh", "grpc-server-spring-boot-starter")
SPRING_GRPC = ("org.springframework.grpc", "spring-grpc-spring-boot-starter")
GRADLE = "dependencies {\n  implementation 'net.devh:grpc-server-spring-boot-starter:3.1.0'\n}\n"
INHERITED = (
    "<dependencies><dependency><groupId>net.devh</groupId>"
    "<artifactId>grpc-server-spring-boot-starter</artifactId></dependency></dependencies>"
)

NETTY = ("io.grpc", "grpc-netty-shaded")
LOGNET = ("io.github.lognet", "grpc-spring-boot-starter")
OWN_STARTER = ("com.acme.platform", "acme-grpc-spring-boot-starter")
GRADLE_NETTY = (
    "dependencies {\n  implementation 'io.grpc:grpc-netty-shaded:1.62.2'\n"
    "  implementation 'io.grpc:grpc-services:1.62.2'\n"
    "  implementation 'org.springframework.boot:spring-boot-starter-web'\n}\n"
)


def _pom(starter: tuple[str, str], commented: bool) -> str:
    text = POM.replace("GROUP", starter[0]).replace("ARTIFACT", starter[1])
    return text if commented else text.replace("<!--", "").replace("-->", "")


@pytest.mark.parametrize(
    ("files", "found"),
    [
        ({"svc/pom.xml": _pom(DEVH, commented=True)}, []),
        ({"svc/pom.xml": _pom(SPRING_GRPC, commented=True)}, []),
        (
            {"svc/build.gradle": GRADLE.replace("  implementation", "  // implementation")},
            [],
        ),
        ({"svc/pom.xml": _pom(DEVH, commented=False)}, ["KLB201"]),
        ({"svc/pom.xml": _pom(SPRING_GRPC, commented=False)}, ["KLB201"]),
        (
            {
                "svc/build.gradle": GRADLE.replace(
                    "'net.devh:grpc-server-spring-boot-starter:3.1.0'", "libs.grpc.server.starter"
                )
            },
            ["KLB201"],
        ),
        (
            {
                "svc/pom.xml": _pom(DEVH, commented=True),
                "pom.xml": PARENT_POM.replace("DEPENDENCIES", INHERITED),
            },
            ["KLB201"],
        ),
        (
            {
                "svc/pom.xml": _pom(DEVH, commented=True),
                "pom.xml": PARENT_POM.replace("DEPENDENCIES", ""),
            },
            [],
        ),
        ({"svc/pom.xml": _pom(DEVH, commented=True), SERVICE_PATH: SERVICE}, ["KLB201"]),
        ({}, ["KLB201"]),  # no build read: the settings are taken at their word
        # grpc-java alone: the code builds its own server, reading the port by @Value
        ({"svc/pom.xml": _pom(NETTY, commented=False)}, []),
        ({"svc/build.gradle": GRADLE_NETTY}, []),
        # the starter declared by a parent POM that is no folder above the module
        (
            {
                "svc/pom.xml": _pom(NETTY, commented=False).replace("../pom.xml", "../bom/pom.xml"),
                "bom/pom.xml": PARENT_POM.replace("DEPENDENCIES", INHERITED).replace(
                    "<artifactId>shop", "<groupId>com.acme</groupId><artifactId>shop"
                ),
            },
            ["KLB201"],
        ),
        ({"svc/pom.xml": _pom(LOGNET, commented=False)}, ["KLB201"]),
        ({"svc/pom.xml": _pom(OWN_STARTER, commented=False)}, ["KLB201"]),
    ],
    ids=[
        "devh-commented-out",
        "spring-grpc-commented-out",
        "gradle-commented-out",
        "devh-built",
        "spring-grpc-built",
        "gradle-catalog-alias",
        "inherited-from-parent",
        "parent-manages-only",
        "service-class-in-code",
        "no-build-file",
        "grpc-java-alone",
        "grpc-java-alone-gradle",
        "starter-from-parent-elsewhere",
        "lognet-starter",
        "own-starter",
    ],
)
def test_settings_make_no_server_where_the_modules_build_has_no_grpc(
    tmp_path: Path, files: dict[str, str], found: list[str]
) -> None:
    settings = {f"{RESOURCES}/application.yml": "grpc:\n  server:\n    port: 9094\n"}
    findings = lint_files(tmp_path, {**settings, **files}, ["KLB201"]).findings
    assert rules_of(findings) == found


@pytest.mark.parametrize(
    ("settings", "found"),
    [
        ("spring.grpc.server.port=9090\n", ["KLB201"]),
        ("spring.grpc.server.port=9090\nspring.grpc.server.keep-alive.max-age=5m\n", ["KLB204"]),
        (
            "spring.grpc.server.port=9090\nspring.grpc.server.keep-alive.max-age=5m\n"
            "spring.grpc.server.keep-alive.max-age-grace=30s\n",
            [],
        ),
    ],
    ids=["none", "age-only", "both"],
)
def test_spring_grpcs_server_is_judged_and_advised_in_its_own_keys(
    tmp_path: Path, settings: str, found: list[str]
) -> None:
    files = {f"{RESOURCES}/application.properties": settings}
    findings = lint_files(tmp_path, files, ["KLB201", "KLB204"]).findings
    assert rules_of(findings) == found
    for finding in findings:  # never net.devh's grpc.server.* keys, which it does not read
        assert "spring.grpc.server.keep-alive.max-age" in finding.message + finding.text
        assert " grpc.server." not in finding.message + finding.text
    if found == ["KLB201"]:
        (finding,) = findings
        assert finding.message == (
            "Spring gRPC's server sets no spring.grpc.server.keep-alive.max-age"
        )
        assert "set spring.grpc.server.keep-alive.max-age=5m and" in finding.text


def test_spring_grpcs_zero_shutdown_grace_is_advised_in_its_own_key(tmp_path: Path) -> None:
    settings = "spring.grpc.server.port=9090\nspring.grpc.server.shutdown-grace-period=0\n"
    files = {f"{RESOURCES}/application.properties": settings}
    (finding,) = lint_files(tmp_path, files, ["KLB404"]).findings
    assert finding.text.endswith("set spring.grpc.server.shutdown-grace-period=25s")


PROFILED_DEPLOYMENT = UNNAMED_PORT_SERVICE.replace("PORT", "9090") + "          ACTIVATES\n"


@pytest.mark.parametrize(
    ("activates", "found"),
    [
        ("env:\n            - {name: SPRING_PROFILES_ACTIVE, value: k8s}", ["k8s"]),
        ("args: ['--spring.profiles.active=dev']", ["dev"]),
        ("env:\n            - {name: SPRING_PROFILES_ACTIVE, value: 'prod,k8s'}", ["k8s"]),
        ("env:\n            - {name: OTHER, value: x}", ["dev", "k8s"]),  # either may run
    ],
    ids=["env", "args", "several", "none-named"],
)
def test_a_server_only_profiles_make_is_judged_in_the_profile_the_container_runs(
    tmp_path: Path, activates: str, found: list[str]
) -> None:
    """The base settings name no server; each profile's does, with no connection age: the
    server runs where its profile is active, and only there is it judged."""
    files = {
        f"{RESOURCES}/application.properties": "spring.application.name=orders\n",
        f"{RESOURCES}/application-dev.properties": "server.port=8080\ngrpc.server.port=9090\n",
        f"{RESOURCES}/application-k8s.properties": "server.port=8080\ngrpc.server.port=9090\n",
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": PROFILED_DEPLOYMENT.replace("ACTIVATES", activates),
    }
    findings = lint_files(tmp_path, files, ["KLB201"]).findings
    assert [(f.path.rsplit("-", 1)[-1], f.line) for f in findings] == [
        (f"{profile}.properties", 2) for profile in found
    ]


def test_a_profile_that_repeats_the_base_servers_port_is_judged_once_at_the_base(
    tmp_path: Path,
) -> None:
    files = {
        f"{RESOURCES}/application.properties": "grpc.server.port=9090\n",
        f"{RESOURCES}/application-k8s.properties": "grpc.server.port=9091\n",
    }
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.path.endswith("application.properties")


def test_a_starters_client_name_injected_in_several_classes_is_one_channel_told_once(
    tmp_path: Path,
) -> None:
    """net.devh's starter makes one channel per client name: the classes that inject it
    share it, so it is reported once, at its first place, with the others."""
    settings = "spring:\n  application:\n    name: orders\n"
    audit = STARTER_CLIENT.replace("Pricing", "Audit").replace(
        "  private PricesGrpc.PricesBlockingStub prices;\n",
        "  private PricesGrpc.PricesBlockingStub prices;\n\n"
        '  @GrpcClient("backend")\n  private PricesGrpc.PricesStub asyncPrices;\n',
    )
    files = {
        **_starter_client_files(settings, ORDERS),
        "svc/src/main/java/com/acme/orders/Audit.java": audit,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith("Audit.java") and finding.line == 8
    also = [(r.path.rsplit("/", 1)[-1], r.line) for r in finding.related if "too" in r.message]
    assert also == [("Audit.java", 11), ("Pricing.java", 8)]
    other = audit.replace(
        '@GrpcClient("backend")\n  private PricesGrpc.PricesStub',
        '@GrpcClient("ledger")\n  private PricesGrpc.PricesStub',
    )
    files = {**files, "svc/src/main/java/com/acme/orders/Audit.java": other}
    ledger = ORDERS.replace(
        '  GRPC_CLIENT_BACKEND_ADDRESS: "static://backend:50051"\n',
        '  GRPC_CLIENT_BACKEND_ADDRESS: "static://backend:50051"\n'
        '  GRPC_CLIENT_LEDGER_ADDRESS: "static://backend:50051"\n',
    )
    files["k8s.yaml"] = GRPC_SERVICE + BACKEND + ledger
    found = lint_files(tmp_path / "two", files, ["KLB102"]).findings
    assert len(found) == 2  # two names: two channels, each told


# A channel built in the constructor of a class Spring does not make itself: a @Bean method
# of another file (which names no grpc-java) creates it from a bound properties class.
PROXY_CLIENT = """\
package com.acme;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class BackendClient {
  private final ManagedChannel channel;

  public BackendClient(final String host, int port, final Audit audit) {
    this.channel = ManagedChannelBuilder.forAddress(host, port)
        .usePlaintext()
        .build();
  }
}
"""
BEAN_PATH = "svc/src/main/java/com/acme/ClientsConfiguration.java"
BEAN_CONFIGURATION = """\
package com.acme;

import com.acme.config.BackendProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration
public class ClientsConfiguration {
  @Bean
  public BackendClient backendClient(BackendProperties props, Audit audit) {
    return new BackendClient(props.getHost(), Integer.parseInt(props.getPortText()), audit);
  }
}
"""
PORT_TEXT = BOUND_PROPERTIES.replace(
    "private int port = 50051;", 'private String portText = "50051";'
)


def test_a_channel_built_from_its_constructors_parameters_dials_what_the_bean_passes() -> None:
    modules = [
        parse_java(CLIENT_PATH, PROXY_CLIENT.encode()),
        parse_java(BEAN_PATH, BEAN_CONFIGURATION.encode()),
        parse_java(PROPERTIES_PATH, PORT_TEXT.encode()),
    ]
    assign_projects(modules)
    (resolved, *_) = resolve_imports(modules)
    (channel,) = resolved.channels
    assert channel.long_lived
    assert channel.target == EnvText(
        (EnvRef("BACKEND_HOST", "localhost"), ":", EnvRef("BACKEND_PORTTEXT", "50051"))
    )


def test_a_bound_host_a_configmap_key_gives_by_its_property_name_is_klb102(
    tmp_path: Path,
) -> None:
    """The Deployment names the variable as the property (`backend.host`, which Spring's
    relaxed binding reads) and takes its value from a ConfigMap's key."""
    deployment = (
        "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: clients\ndata:\n"
        "  BACKEND: backend\n  PORT: '50051'\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
        "  selector:\n    matchLabels: {app: orders}\n  template:\n    metadata:\n"
        "      labels: {app: orders}\n    spec:\n      containers:\n        - name: orders\n"
        "          image: registry.example/svc:1.0\n          env:\n"
        "            - name: backend.host\n"
        "              valueFrom: {configMapKeyRef: {name: clients, key: BACKEND}}\n"
        "            - name: backend.portText\n"
        "              valueFrom: {configMapKeyRef: {name: clients, key: PORT}}\n"
    )
    files = {
        CLIENT_PATH: PROXY_CLIENT,
        BEAN_PATH: BEAN_CONFIGURATION,
        PROPERTIES_PATH: PORT_TEXT,
        "svc/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s.yaml": MANIFESTS + deployment,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB102"]).findings
    assert finding.path.endswith(CLIENT_PATH) and finding.line == 10
    assert "BACKEND in ConfigMap clients" in finding.text
    secret = deployment.replace(
        "configMapKeyRef: {name: clients, key: BACKEND}",
        "secretKeyRef: {name: clients, key: BACKEND}",
    )
    files["k8s.yaml"] = MANIFESTS + secret  # a Secret's value is not read: the default
    assert lint_files(tmp_path / "secret", files, ["KLB102"]).findings == []


@pytest.mark.parametrize(
    ("build", "key"),
    [
        (SPRING_GRPC, "spring.grpc.server.keep-alive.max-age"),
        (DEVH, "grpc.server.max-connection-age"),
        (None, "grpc.server.max-connection-age"),  # no build read: as before, net.devh's
    ],
    ids=["spring-grpc-built", "devh-built", "no-build"],
)
def test_settings_with_both_starters_keys_are_the_server_of_the_starter_the_module_builds(
    tmp_path: Path, build: tuple[str, str] | None, key: str
) -> None:
    settings = "spring:\n  grpc:\n    server:\n      port: 9095\ngrpc:\n  server:\n    port: 9095\n"
    files = {f"{RESOURCES}/application.yml": settings}
    if build is not None:
        files["svc/pom.xml"] = _pom(build, commented=False)
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.message.endswith(f"sets no {key}")
