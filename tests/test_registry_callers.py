"""Callers that find a server through a service registry, not through its Service: the
code facts (a registration, a registry resolver) and what KLB302/KLB401 make of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.languages.go.parse import analyse_go
from k8slb.languages.java.parse import parse as parse_java
from k8slb.languages.javascript.parse import parse as parse_javascript
from k8slb.languages.python.parse import analyse

from .helpers import lint_files

REGISTRY_GO = """\
package registry

import consul "github.com/hashicorp/consul/api"

type Client struct{ *consul.Client }

func NewClient(addr string) (*Client, error) {
	c, err := consul.NewClient(consul.DefaultConfig())
	return &Client{c}, err
}

// Register wraps the agent's register call: only a program that calls it registers.
func (c *Client) Register(name string, port int) error {
	return c.Agent().ServiceRegister(&consul.AgentServiceRegistration{Name: name, Port: port})
}
"""
GEO_GO = """\
package geo

import (
	"net"

	"google.golang.org/grpc"

	"github.com/acme/hotel/registry"
)

type Server struct{ Registry *registry.Client }

func (s *Server) Run() error {
	srv := grpc.NewServer()
	lis, _ := net.Listen("tcp", ":8083")
	if err := s.Registry.Register("srv-geo", 8083); err != nil {
		return err
	}
	return srv.Serve(lis)
}
"""
GEO_MAIN = """\
package main

import (
	"github.com/acme/hotel/registry"
	"github.com/acme/hotel/services/geo"
)

func main() {
	r, _ := registry.NewClient("consul:8500")
	(&geo.Server{Registry: r}).Run()
}
"""
FRONTEND_MAIN = """\
package main

import (
	"net/http"

	_ "github.com/mbobakov/grpc-consul-resolver"
	"google.golang.org/grpc"

	"github.com/acme/hotel/registry"
)

func main() {
	registry.NewClient("consul:8500")
	conn, _ := grpc.Dial("consul://consul:8500/srv-geo")
	_ = conn
	http.ListenAndServe(":5000", nil)
}
"""
DOCKERFILE = """\
FROM golang:1.22
WORKDIR /workspace
COPY . .
RUN CGO_ENABLED=0 go install -ldflags="-s -w" ./cmd/...
"""
COMPOSE = "services:\n  app:\n    build: .\n    image: acme/hotel:latest\n"
APP = """\
apiVersion: v1
kind: Service
metadata: {{name: {name}}}
spec:
  type: {kind}
  selector: {{app: {name}}}
  ports: [{{port: {port}, targetPort: {port}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 3
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata: {{labels: {{app: {name}}}}}
    spec:
      containers:
        - name: {name}
          image: acme/hotel:latest
          command: [./{name}]
          ports: [{{containerPort: {port}}}]
{env}"""


def hotel(geo_kind: str = "ClusterIP", env: str = "") -> dict[str, str | bytes]:
    """A Go module whose gRPC server registers itself in Consul, and a frontend that
    dials it through a Consul resolver; one image holds both binaries."""
    return {
        "go.mod": "module github.com/acme/hotel\n",
        "registry/registry.go": REGISTRY_GO,
        "services/geo/server.go": GEO_GO,
        "cmd/geo/main.go": GEO_MAIN,
        "cmd/frontend/main.go": FRONTEND_MAIN,
        "Dockerfile": DOCKERFILE,
        "docker-compose.yml": COMPOSE,
        "k8s/geo.yaml": APP.format(name="geo", kind=geo_kind, port=8083, env=""),
        "k8s/frontend.yaml": APP.format(name="frontend", kind="ClusterIP", port=5000, env=env),
    }


def by_container(tmp_path: Path, files: dict[str, str | bytes], rule: str) -> dict[str, object]:
    findings = lint_files(tmp_path, files, [rule]).findings
    return {f.container or "": f for f in findings}


def test_go_facts_hold_a_registry_registration_its_function_and_the_calls_made() -> None:
    registry = analyse_go("registry/registry.go", REGISTRY_GO.encode())
    (made,) = registry.registrations
    assert (made.registry, made.call, made.within) == ("Consul", "ServiceRegister", "Register")
    assert "Register" in analyse_go("services/geo/server.go", GEO_GO.encode()).called


def test_go_facts_hold_the_dials_through_a_registry_resolver() -> None:
    frontend = analyse_go("cmd/frontend/main.go", FRONTEND_MAIN.encode())
    assert {d.how for d in frontend.registry_dials} == {
        "imports github.com/mbobakov/grpc-consul-resolver",
        "consul:// target",
    }
    assert not frontend.registrations


def test_python_facts_hold_a_consul_registration_and_a_registry_target() -> None:
    source = (
        "import consul\n\n"
        "def main():\n"
        "    c = consul.Consul(host='consul')\n"
        "    c.agent.service.register('geo', port=8083)\n"
        "    target = 'consul://consul:8500/geo'\n"
    )
    facts = analyse("server.py", source.encode())
    (made,) = facts.registrations
    assert (made.registry, made.within) == ("Consul", "main")
    assert [d.how for d in facts.registry_dials] == ["consul:// target"]


def test_javascript_facts_hold_a_consul_registration_and_a_registry_target() -> None:
    source = (
        "const Consul = require('consul');\n"
        "const consul = new Consul({host: 'consul'});\n"
        "function start() {\n"
        "  consul.agent.service.register({name: 'geo', port: 8083});\n"
        "}\n"
        "const target = 'consul://consul:8500/geo';\n"
    )
    facts = parse_javascript("server.js", source.encode())
    (made,) = facts.registrations
    assert (made.registry, made.within, made.loc.line) == ("Consul", "start", 4)
    assert [d.how for d in facts.registry_dials] == ["consul:// target"]


def test_java_facts_hold_a_spring_cloud_discovery_registration_unless_turned_off() -> None:
    source = "package shop;\n\n@SpringBootApplication\n@EnableEurekaClient\npublic class App {}\n"
    (made,) = parse_java("App.java", source.encode()).registrations
    assert (made.registry, made.call, made.loc.line) == ("Eureka", "@EnableEurekaClient", 4)
    off = source.replace("@EnableEurekaClient", "@EnableDiscoveryClient(autoRegister = false)")
    assert parse_java("App.java", off.encode()).registrations == []


def test_a_server_that_registers_in_a_registry_is_info_for_klb302_and_klb401(
    tmp_path: Path,
) -> None:
    """Its callers resolve its pods through Consul: readiness and a pause do not gate
    that traffic, and the message says where the code registers."""
    for rule in ("KLB302", "KLB401"):
        found = by_container(tmp_path / rule, hotel(), rule)
        geo = found["geo"]
        assert geo.severity is Severity.INFO, geo.text  # type: ignore[attr-defined]
        assert "registers the pod in Consul" in geo.text  # type: ignore[attr-defined]
        assert "registry.go:14" in geo.text  # type: ignore[attr-defined]


def test_a_program_that_only_imports_the_registry_client_is_still_called_through_its_service(
    tmp_path: Path,
) -> None:
    """The frontend links the registry package in (for its client) but never calls the
    function that registers: its Service is how it is reached, a warning stays."""
    frontend = by_container(tmp_path, hotel(), "KLB401")["frontend"]
    assert frontend.severity is Severity.WARNING  # type: ignore[attr-defined]


def test_a_call_of_another_packages_function_of_the_same_name_is_no_registration(
    tmp_path: Path,
) -> None:
    """The frontend calls prometheus.Register, not the registry's Register: it still
    registers nothing, and its Service is how it is reached."""
    files = hotel()
    main = str(files["cmd/frontend/main.go"])
    files["cmd/frontend/main.go"] = main.replace(
        '\t"github.com/acme/hotel/registry"\n',
        '\t"github.com/acme/hotel/registry"\n\t"github.com/prometheus/client_golang/prometheus"\n',
    ).replace("\tconn, _ :=", "\tprometheus.Register(nil)\n\tconn, _ :=")
    frontend = by_container(tmp_path, files, "KLB401")["frontend"]
    assert frontend.severity is Severity.WARNING  # type: ignore[attr-defined]
    assert (
        "prometheus.Register"
        in analyse_go("m.go", str(files["cmd/frontend/main.go"]).encode()).called
    )


def test_a_caller_through_the_service_wins_over_the_registry(tmp_path: Path) -> None:
    """A NodePort Service, or a container that dials the Service by name: the Service
    is called, whatever the registry says."""
    node_port = by_container(tmp_path / "a", hotel(geo_kind="NodePort"), "KLB401")["geo"]
    assert node_port.severity is Severity.WARNING  # type: ignore[attr-defined]
    env = "          env: [{name: GEO_ADDR, value: 'geo:8083'}]\n"
    dialed = by_container(tmp_path / "b", hotel(env=env), "KLB401")["geo"]
    assert dialed.severity is Severity.WARNING  # type: ignore[attr-defined]


def test_a_caller_through_the_service_wins_over_the_table_of_components(
    tmp_path: Path,
) -> None:
    """An ingester the table says is reached through the ring stays a warning when a
    container dials its Service."""
    ingester = APP.format(name="ingester", kind="ClusterIP", port=9095, env="").replace(
        "image: acme/hotel:latest\n          command: [./ingester]",
        "image: grafana/tempo:2.6.0\n          args: [-target=ingester]",
    )
    alone = by_container(tmp_path / "a", {"k8s.yaml": ingester}, "KLB401")["ingester"]
    assert alone.severity is Severity.INFO  # type: ignore[attr-defined]
    env = "          env: [{name: INGESTER, value: 'ingester:9095'}]\n"
    client = APP.format(name="client", kind="ClusterIP", port=80, env=env)
    files: dict[str, str | bytes] = {"k8s.yaml": ingester + "---\n" + client}
    dialed = by_container(tmp_path / "b", files, "KLB401")["ingester"]
    assert dialed.severity is Severity.WARNING  # type: ignore[attr-defined]


def test_a_grpc_service_of_a_server_that_registers_in_a_registry_is_klb101_info(
    tmp_path: Path,
) -> None:
    """gRPC callers that resolve the server through Consul balance over the pod
    addresses it lists: the ClusterIP pins no one unless someone dials it."""

    def grpc_named(files: dict[str, str | bytes]) -> dict[str, str | bytes]:
        geo = str(files["k8s/geo.yaml"]).replace("[{port: 8083", "[{name: grpc, port: 8083")
        return {**files, "k8s/geo.yaml": geo}

    (finding,) = lint_files(tmp_path / "a", grpc_named(hotel()), ["KLB101"]).findings
    assert finding.severity is Severity.INFO
    assert "registers the pod in Consul" in finding.text
    env = "          env: [{name: GEO_ADDR, value: 'geo:8083'}]\n"
    (dialed,) = lint_files(tmp_path / "b", grpc_named(hotel(env=env)), ["KLB101"]).findings
    assert dialed.severity is Severity.WARNING


# -- Spring Cloud's discovery starters: registered by the build's dependency alone ----------

SHOP_PARENT_POM = """\
<project>
  <groupId>com.acme.shop</groupId>
  <artifactId>shop-parent</artifactId>
  <version>2.0.0</version>
  <packaging>pom</packaging>
  <modules><module>billing</module></modules>
  <dependencies>
    <dependency>
      <groupId>org.springframework.cloud</groupId>
      <artifactId>spring-cloud-starter-netflix-eureka-client</artifactId>
    </dependency>
  </dependencies>
</project>
"""
BILLING_POM = """\
<project>
  <parent>
    <groupId>com.acme.shop</groupId>
    <artifactId>shop-parent</artifactId>
    <version>2.0.0</version>
  </parent>
  <artifactId>billing</artifactId>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-web</artifactId>
    </dependency>
  </dependencies>
</project>
"""
BILLING_SETTINGS = """\
spring:
  application:
    name: billing
eureka:
  client:
    service-url:
      defaultZone: http://registry:8761/eureka/
"""
BILLING_APP = """\
package com.acme.billing;

@SpringBootApplication
@EnableFeignClients
public class BillingApplication {
    public static void main(String[] args) {
        SpringApplication.run(BillingApplication.class, args);
    }
}
"""


def billing(
    settings: str = BILLING_SETTINGS, parent: str = SHOP_PARENT_POM, own: str = BILLING_POM
) -> dict[str, str | bytes]:
    """A Spring module whose parent POM brings the Eureka client starter, run by a
    Deployment behind a ClusterIP Service nothing names."""
    files: dict[str, str | bytes] = {
        "pom.xml": parent,
        "billing/pom.xml": own,
        "billing/src/main/resources/application.yml": settings,
        "billing/src/main/java/com/acme/billing/BillingApplication.java": BILLING_APP,
        "billing/Dockerfile": "FROM eclipse-temurin:21\nCOPY target/app.jar /app.jar\n",
        "k8s/billing.yaml": APP.format(name="billing", kind="ClusterIP", port=8080, env="")
        .replace("acme/hotel:latest", "acme/billing:1.0")
        .replace("command: [./billing]\n          ", ""),
        "skaffold.yaml": (
            "apiVersion: skaffold/v4beta6\nkind: Config\nbuild:\n  artifacts:\n"
            "    - image: acme/billing\n      context: billing\n"
        ),
    }
    return files


def test_a_spring_application_whose_build_has_a_discovery_starter_registers_by_it(
    tmp_path: Path,
) -> None:
    """No annotation: the Eureka client starter its parent POM declares registers it when
    it starts, so its callers find the pods in Eureka (info, with where the build says it)."""
    for rule in ("KLB302", "KLB401"):
        found = by_container(tmp_path / rule, billing(), rule)["billing"]
        assert found.severity is Severity.INFO, found.text  # type: ignore[attr-defined]
        assert "registers the pod in Eureka" in found.text  # type: ignore[attr-defined]
        assert "pom.xml:10" in found.text  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "turned_off",
    [
        "  client:\n    register-with-eureka: false\n",
        "  client:\n    enabled: ${EUREKA_ENABLED:true}\n",
    ],
    ids=["not-registering", "a-switch-the-environment-sets"],
)
def test_settings_that_turn_registering_off_leave_the_service_a_warning(
    tmp_path: Path, turned_off: str
) -> None:
    settings = BILLING_SETTINGS.replace("eureka:\n  client:\n", "eureka:\n" + turned_off)
    found = by_container(tmp_path, billing(settings), "KLB401")["billing"]
    assert found.severity is Severity.WARNING  # type: ignore[attr-defined]
    files = billing()
    files["billing/src/main/resources/application-k8s.yml"] = (
        "spring:\n  cloud:\n    discovery:\n      enabled: false\n"
    )
    profile = by_container(tmp_path / "profile", files, "KLB401")["billing"]
    assert profile.severity is Severity.WARNING  # type: ignore[attr-defined]


def test_a_starter_only_tests_use_or_a_folder_above_that_is_no_parent_registers_nothing(
    tmp_path: Path,
) -> None:
    scoped = SHOP_PARENT_POM.replace(
        "</artifactId>\n    </dependency>",
        "</artifactId>\n      <scope>test</scope>\n    </dependency>",
    )
    found = by_container(tmp_path / "a", billing(parent=scoped), "KLB401")["billing"]
    assert found.severity is Severity.WARNING  # type: ignore[attr-defined]
    orphan = BILLING_POM.replace("<parent>", "<!--").replace("</parent>", "-->")
    found = by_container(tmp_path / "b", billing(own=orphan), "KLB401")["billing"]
    assert found.severity is Severity.WARNING  # type: ignore[attr-defined]


def test_a_gradle_builds_discovery_starter_registers_the_application(tmp_path: Path) -> None:
    files = billing()
    del files["pom.xml"], files["billing/pom.xml"]
    files["billing/build.gradle.kts"] = (
        'plugins { id("org.springframework.boot") version "3.3.0" }\n\ndependencies {\n'
        '    implementation("org.springframework.boot:spring-boot-starter-web")\n'
        '    implementation("org.springframework.cloud:spring-cloud-starter-consul-discovery")\n'
        "}\n"
    )
    found = by_container(tmp_path, files, "KLB401")["billing"]
    assert found.severity is Severity.INFO, found.text  # type: ignore[attr-defined]
    assert "registers the pod in Consul" in found.text  # type: ignore[attr-defined]
    assert "build.gradle.kts:5" in found.text  # type: ignore[attr-defined]
