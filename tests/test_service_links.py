"""The variables the kubelet sets in every container for each Service of its namespace
(`<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT`, `<NAME>_SERVICE_PORT_<PORT NAME>`): a
client whose address is one of them dials that Service's ClusterIP, though no manifest
spells the variable (addresses.service_link)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Severity
from k8slb.rules.grpc_clusterip import BACKEND, GRPC_SERVICE

from .helpers import lint_files

# A load generator that keeps one grpc-java channel for its life, to the Service the
# kubelet's variables name.
JAVA = """\
package com.example.loadgen;

import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;

public class LoadGenerator {
  public static void main(String[] args) throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forAddress(
            System.getenv("BACKEND_SERVICE_HOST"),
            Integer.parseInt(System.getenv("PORT_VARIABLE")))
        .usePlaintext()
        .build();
    while (true) {
      EchoGrpc.newBlockingStub(channel).echo(Ping.getDefaultInstance());
    }
  }
}
"""
PYTHON = """\
import os

import grpc

CHANNEL = grpc.insecure_channel(os.environ["BACKEND_SERVICE_HOST"] + ":50051")
"""
LOADGEN = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: loadgen
spec:
  selector:
    matchLabels: {app: loadgen}
  template:
    metadata:
      labels: {app: loadgen}
    spec:
      containers:
        - name: loadgen
          image: registry.example/loadgen:1.0
"""
JAVA_PATH = "loadgen/src/main/java/LoadGenerator.java"


def klb102(tmp_path: Path, code: dict[str, str], manifests: str) -> list[str]:
    files = {**code, "deploy/k8s.yaml": GRPC_SERVICE + BACKEND + manifests}
    findings = lint_files(tmp_path, files, ["KLB102"]).findings
    assert all(f.severity == Severity.WARNING for f in findings)
    return [f"{f.message} {f.text}" for f in findings]


@pytest.mark.parametrize(
    "port", ["BACKEND_SERVICE_PORT", "BACKEND_SERVICE_PORT_GRPC"], ids=["first", "named"]
)
def test_a_java_channel_to_the_kubelets_variables_dials_the_service(
    tmp_path: Path, port: str
) -> None:
    code = {JAVA_PATH: JAVA.replace("PORT_VARIABLE", port)}
    (finding,) = klb102(tmp_path, code, LOADGEN)
    assert "ClusterIP Service/backend" in finding
    assert "as the kubelet sets them in Deployment/loadgen" in finding


GO = """\
package main

import (
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

func main() {
	conn, _ := grpc.NewClient(os.Getenv("BACKEND_SERVICE_HOST")+":50051",
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	defer conn.Close()
	select {}
}
"""
NODE = """\
const grpc = require("@grpc/grpc-js");

const client = new grpc.Client(
  `${process.env.BACKEND_SERVICE_HOST}:50051`,
  grpc.credentials.createInsecure(),
);
module.exports = client;
"""


@pytest.mark.parametrize(
    "code",
    [{"loadgen/app.py": PYTHON}, {"loadgen/main.go": GO}, {"loadgen/index.js": NODE}],
    ids=["python", "go", "node"],
)
def test_a_channel_to_the_kubelets_host_variable_dials_the_service(
    tmp_path: Path, code: dict[str, str]
) -> None:
    (finding,) = klb102(tmp_path, code, LOADGEN)
    assert "ClusterIP Service/backend" in finding
    assert "BACKEND_SERVICE_HOST as the kubelet sets it in Deployment/loadgen" in finding


def test_a_port_name_no_port_of_the_service_has_is_no_link(tmp_path: Path) -> None:
    code = {JAVA_PATH: JAVA.replace("PORT_VARIABLE", "BACKEND_SERVICE_PORT_HTTP")}
    assert klb102(tmp_path, code, LOADGEN) == []


@pytest.mark.parametrize(
    "change",
    [
        (
            "    spec:\n      containers:",
            "    spec:\n      enableServiceLinks: false\n      containers:",
        ),
        (
            "image: registry.example/loadgen:1.0\n",
            "image: registry.example/loadgen:1.0\n          env:\n"
            "            - name: BACKEND_SERVICE_HOST\n"
            "              valueFrom: {secretKeyRef: {name: hosts, key: backend}}\n",
        ),
    ],
    ids=["links-turned-off", "an-env-entry-sets-it"],
)
def test_no_link_where_the_pod_turns_them_off_or_its_env_sets_the_name(
    tmp_path: Path, change: tuple[str, str]
) -> None:
    assert klb102(tmp_path, {"loadgen/app.py": PYTHON}, LOADGEN.replace(*change)) == []


def test_a_headless_service_has_no_link(tmp_path: Path) -> None:
    files = {
        "loadgen/app.py": PYTHON,
        "deploy/k8s.yaml": GRPC_SERVICE.replace("spec:\n", "spec:\n  clusterIP: None\n")
        + BACKEND
        + LOADGEN,
    }
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


def test_a_service_of_another_namespace_has_no_link(tmp_path: Path) -> None:
    manifests = LOADGEN.replace("  name: loadgen\n", "  name: loadgen\n  namespace: jobs\n", 1)
    service = GRPC_SERVICE.replace("  name: backend\n", "  name: backend\n  namespace: shop\n")
    files = {"loadgen/app.py": PYTHON, "deploy/k8s.yaml": service + BACKEND + manifests}
    assert lint_files(tmp_path, files, ["KLB102"]).findings == []


# A Spring service whose channels a private helper builds with a tracing library's builder
# bean, from a properties object its callers pass, bound from settings that read the
# kubelet's variables.
SPRING_CONFIG = """\
package com.example.loadgen;

import io.grpc.ManagedChannel;
import org.springframework.context.annotation.Bean;

public class ChannelConfig {
  private final ClientProps props;
  private final TracingManagedChannelBuilder channelBuilder;

  ChannelConfig(ClientProps props, TracingManagedChannelBuilder channelBuilder) {
    this.props = props;
    this.channelBuilder = channelBuilder;
  }

  @Bean
  public EchoGrpc.EchoBlockingStub blocking() {
    return EchoGrpc.newBlockingStub(channel(props.getBackend()));
  }

  @Bean
  public EchoGrpc.EchoStub async() {
    return EchoGrpc.newStub(channel(props.getBackend()));
  }

  private ManagedChannel channel(Endpoint endpoint) {
    return channelBuilder.forAddress(endpoint.getHost(), endpoint.getPort()).usePlaintext().build();
  }
}
"""
SPRING_PROPS = """\
package com.example.loadgen;

import org.springframework.boot.context.properties.ConfigurationProperties;

@ConfigurationProperties("clients")
public class ClientProps {
  private Endpoint backend;

  public Endpoint getBackend() {
    return backend;
  }
}
"""
SPRING_ENDPOINT = """\
package com.example.loadgen;

public class Endpoint {
  private String host;
  private int port;

  public String getHost() {
    return host;
  }

  public int getPort() {
    return port;
  }
}
"""
SPRING_SETTINGS = """\
clients:
  backend:
    host: ${BACKEND_SERVICE_HOST:localhost}
    port: ${BACKEND_SERVICE_PORT_GRPC:9091}
"""


def spring_files() -> dict[str, str]:
    java = "loadgen/src/main/java/com/example/loadgen"
    return {
        f"{java}/ChannelConfig.java": SPRING_CONFIG,
        f"{java}/ClientProps.java": SPRING_PROPS,
        f"{java}/Endpoint.java": SPRING_ENDPOINT,
        "loadgen/src/main/resources/application.yml": SPRING_SETTINGS,
    }


def test_spring_placeholders_of_the_kubelets_variables_through_a_helpers_parameter(
    tmp_path: Path,
) -> None:
    (finding,) = klb102(tmp_path, spring_files(), LOADGEN)
    assert "ClusterIP Service/backend" in finding
    assert "BACKEND_SERVICE_HOST and BACKEND_SERVICE_PORT_GRPC as the kubelet sets them" in finding


def test_a_helper_whose_callers_pass_different_properties_reads_none(tmp_path: Path) -> None:
    files = spring_files()
    config = "loadgen/src/main/java/com/example/loadgen/ChannelConfig.java"
    files[config] = files[config].replace(
        "newStub(channel(props.getBackend()))", "newStub(channel(props.getOther()))"
    )
    assert klb102(tmp_path, files, LOADGEN) == []
