"""Spring Cloud's load-balanced HTTP clients: a URL handed to a `@LoadBalanced`
RestTemplate, RestClient.Builder or WebClient.Builder names a service ID that discovery
maps to instances with their own ports, so KLB111 does not judge it as a DNS name on the
Service's port (80 when the URL writes none). The evidence is the bean the client is
injected with: which one Spring gives the injection point, from every file of the project."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.code.imported import resolve_imports
from k8slb.code.projects import assign_projects
from k8slb.languages.java.parse import parse

from .helpers import lint_files

CONFIG_PATH = "catalog/src/main/java/com/example/catalog/ClientConfig.java"
BALANCER_PATH = "catalog/src/main/java/com/example/catalog/BalancerConfig.java"

# the client the URL is handed to: a bean method's builder parameter
CLIENT_CONFIG = """\
package com.example.catalog;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

@Configuration
public class ClientConfig {
{balancer}
  @Bean
  StockClient stockClient({qualifier}RestClient.Builder builder) {
    RestClient client = builder.clone().baseUrl("http://inventory").build();
    return new StockClient(client);
  }
}
"""
BALANCED_BUILDER = """\
  @Bean
  @LoadBalanced
  RestClient.Builder balancedBuilder() {
    return RestClient.builder();
  }
"""
PLAIN_BUILDER = """\
  @Bean
  RestClient.Builder plainBuilder() {
    return RestClient.builder();
  }
"""
BALANCER_CONFIG = """\
package com.example.catalog;

import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

@Configuration
public class BalancerConfig {
{beans}}
"""
# the Service the URL's host names, on 8080 only: `http://inventory` is port 80 to DNS
MANIFESTS = """\
apiVersion: v1
kind: Service
metadata:
  name: inventory
spec:
  selector:
    app: inventory
  ports:
    - name: http
      port: 8080
"""


def _config(balancer: str = "", qualifier: str = "") -> str:
    return CLIENT_CONFIG.replace("{balancer}", balancer).replace("{qualifier}", qualifier)


def _klb111(tmp_path: Path, files: dict[str, str]) -> list[int]:
    files = {**files, "k8s/inventory.yaml": MANIFESTS}
    return [f.line for f in lint_files(tmp_path, files, ["KLB111"]).findings]


def test_a_url_given_to_the_load_balanced_builder_is_a_service_id(tmp_path: Path) -> None:
    assert _klb111(tmp_path / "balanced", {CONFIG_PATH: _config(BALANCED_BUILDER)}) == []
    # the same client with no load balancer resolves the name by DNS, on port 80
    assert _klb111(tmp_path / "plain", {CONFIG_PATH: _config()}) == [12]


def test_the_load_balanced_bean_may_be_made_in_another_file_of_the_project(
    tmp_path: Path,
) -> None:
    files = {
        CONFIG_PATH: _config(),
        BALANCER_PATH: BALANCER_CONFIG.replace("{beans}", BALANCED_BUILDER),
    }
    assert _klb111(tmp_path / "project", files) == []
    # another project's load-balanced bean is not the one Spring injects here
    elsewhere = {**files, BALANCER_PATH.replace("catalog/", "billing/", 1): files[BALANCER_PATH]}
    del elsewhere[BALANCER_PATH]
    assert _klb111(tmp_path / "elsewhere", elsewhere) == [12]


@pytest.mark.parametrize(
    ("qualifier", "found"),
    [
        ("", [12]),  # two builders: which one the parameter gets is not the annotation's
        ("@LoadBalanced ", []),  # the qualifier asks for the load-balanced one
    ],
)
def test_beside_a_plain_bean_only_a_qualified_injection_point_gets_the_balanced_one(
    tmp_path: Path, qualifier: str, found: list[int]
) -> None:
    beans = BALANCED_BUILDER + PLAIN_BUILDER
    files = {
        CONFIG_PATH: _config(qualifier=qualifier),
        BALANCER_PATH: BALANCER_CONFIG.replace("{beans}", beans),
    }
    assert _klb111(tmp_path, files) == found


REST_TEMPLATES = """\
package com.example.catalog;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.cloud.client.loadbalancer.LoadBalanced;
import org.springframework.context.annotation.Bean;
import org.springframework.web.client.RestTemplate;

public class Stock {
  @Autowired private RestTemplate balanced;

  @Bean
  @LoadBalanced
  RestTemplate restTemplate() {
    return new RestTemplate();
  }

  int count(String item) {
    return balanced.getForObject("http://inventory/items/" + item, Integer.class);
  }

  int direct(String item) {
    RestTemplate own = new RestTemplate();
    return own.getForObject("http://inventory/items/" + item, Integer.class);
  }
}
"""


def test_an_injected_template_is_the_bean_and_one_made_in_place_is_not(tmp_path: Path) -> None:
    # the field Spring fills gets the load-balanced template; a template the method makes
    # itself resolves the name by DNS
    assert _klb111(tmp_path, {CONFIG_PATH: REST_TEMPLATES}) == [23]


def test_the_balanced_urls_are_dropped_once_the_project_is_resolved() -> None:
    balancer_text = BALANCER_CONFIG.replace("{beans}", BALANCED_BUILDER)
    modules = [parse(CONFIG_PATH, _config().encode()), parse(BALANCER_PATH, balancer_text.encode())]
    assign_projects(modules)
    client, balancer = modules
    assert [u.client for u in client.balanced_urls] == ["RestClient.Builder"]
    assert [url for url, _ in client.urls] == ["http://inventory"]
    assert balancer.exports["@LoadBalanced beans"] == ("RestClient.Builder",)
    resolved, _ = resolve_imports(modules)
    assert resolved.urls == []
