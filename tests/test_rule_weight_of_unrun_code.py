"""What a code finding weighs when no container is known to run the code: `info` where
every container is linked to other code and no image is built from a folder that holds
it (an example run from a terminal), or only one no build names and no container runs (a
variant of a service no manifest deploys); its weight where a build names the image or a
container is left unlinked (a link k8slb failed to make), and never an error
(client-port-not-exposed where the code may run elsewhere, as a CI pipeline does: `info`
where no container of the manifests runs or holds it)."""

from __future__ import annotations

from pathlib import Path

from k8slb.core.findings import Finding, Severity
from k8slb.rulekit.examples import grpc_server, web_deployment

from .helpers import lint_files

SKAFFOLD = "build:\n  artifacts:\n    - image: registry.example/web\n      context: service\n"
DOCKERFILE = 'FROM python:3.12-slim\nCOPY . /app\nCMD ["python", "/app/app.py"]\n'
# A served program k8slb links to its container, so the run shows which code pods run.
LINKED = {
    "k8s/web.yaml": web_deployment(),
    "skaffold.yaml": SKAFFOLD,
    "service/Dockerfile": DOCKERFILE,
    "service/app.py": "import signal\n\nsignal.signal(signal.SIGTERM, lambda *_: exit(0))\n",
}
SERVER = grpc_server()  # no max connection age, waited on with no SIGTERM handler
# the same build, and an image built from worker/ that no manifest of the tree runs
NAMED_WORKER = SKAFFOLD + "    - image: registry.example/worker\n      context: worker\n"


def server_findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    found = lint_files(tmp_path, files, ["KLB201", "KLB403"]).findings
    assert {f.rule for f in found} == {"KLB201", "KLB403"}
    return found


def test_code_no_container_runs_and_no_image_is_built_from_is_info(tmp_path: Path) -> None:
    found = server_findings(tmp_path, {**LINKED, "examples/server.py": SERVER})
    assert all(f.severity is Severity.INFO for f in found)
    assert all("info only: every container is linked to code" in f.text for f in found)


def test_code_in_a_build_context_keeps_its_weight_when_a_build_names_its_image(
    tmp_path: Path,
) -> None:
    # an image is built from its folder and named: a manifest out of the tree may run it
    files = {
        **LINKED,
        "skaffold.yaml": NAMED_WORKER,
        "worker/Dockerfile": DOCKERFILE,
        "worker/server.py": SERVER,
    }
    assert all(f.severity is Severity.WARNING for f in server_findings(tmp_path, files))


def test_a_variant_folder_whose_dockerfile_no_build_names_and_no_container_runs_is_info(
    tmp_path: Path,
) -> None:
    """A copy of a service kept beside it (`service-v2/`, its own Dockerfile) that no
    manifest deploys and no build names: every container is linked, none to it."""
    files = {**LINKED, "service-v2/Dockerfile": DOCKERFILE, "service-v2/app.py": SERVER}
    found = server_findings(tmp_path, files)
    assert all(f.severity is Severity.INFO for f in found)
    assert all("none runs the image" in f.text for f in found)
    assert all("service-v2/Dockerfile would build, which no build names" in f.text for f in found)


def test_code_whose_dockerfile_a_container_is_linked_through_keeps_its_weight(
    tmp_path: Path,
) -> None:
    # the linked container's image is built from the root: its context holds the server
    files = {
        "k8s/web.yaml": web_deployment(),
        "skaffold.yaml": SKAFFOLD.replace("context: service", "context: ."),
        "Dockerfile": DOCKERFILE.replace("/app/app.py", "/app/service/app.py"),
        "service/app.py": LINKED["service/app.py"],
        "worker/server.py": SERVER,
    }
    assert all(f.severity is Severity.WARNING for f in server_findings(tmp_path, files))


def test_code_keeps_its_weight_while_a_container_is_left_unlinked(tmp_path: Path) -> None:
    # the cache's image is built nowhere here: the example may be its code
    cache = web_deployment().replace("web", "cache")
    files = {**LINKED, "k8s/cache.yaml": cache, "examples/server.py": SERVER}
    assert all(f.severity is Severity.WARNING for f in server_findings(tmp_path, files))


def test_code_alone_keeps_its_weight(tmp_path: Path) -> None:
    # no container is linked to any code: the run cannot tell what pods run
    found = server_findings(tmp_path, {"k8s/web.yaml": web_deployment(), "server.py": SERVER})
    assert all(f.severity is Severity.WARNING for f in found)


CLIENT = 'import grpc\n\nchannel = grpc.insecure_channel("web:9090")\n'


def test_a_client_no_container_runs_dialling_a_port_no_service_exposes_is_no_error(
    tmp_path: Path,
) -> None:
    # a pipeline's own container may be the `web` it dials: k8slb cannot tell
    files = {
        **LINKED,
        "skaffold.yaml": NAMED_WORKER,
        "worker/Dockerfile": DOCKERFILE,
        "worker/pipeline.py": CLIENT,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB111"]).findings
    assert finding.severity is Severity.INFO
    assert "info only: no container of the scanned manifests runs this code" in finding.text
    (outside,) = lint_files(
        tmp_path / "ci", {**LINKED, "ci/pipeline.py": CLIENT}, ["KLB111"]
    ).findings
    assert outside.severity is Severity.INFO


# -- a test's stand-in: an image the tree builds that only its tests start ------------------

# the cache runs an image no build of the tree makes: it is left unlinked, so "every
# container is linked" cannot be said, but its image is known
CACHE = web_deployment().replace("web", "cache").replace("registry.example/cache", "redis")
# a test of the tree that starts the worker's image as a container of its own
STARTS_WORKER = """\
from testcontainers.core.container import DockerContainer


def test_orders_reach_the_worker():
    with DockerContainer("registry.example/worker:dev") as worker:
        assert worker.get_exposed_port(50051)
"""
STAND_IN = {
    **LINKED,
    "k8s/cache.yaml": CACHE,
    "skaffold.yaml": NAMED_WORKER,
    "worker/Dockerfile": DOCKERFILE,
    "worker/server.py": SERVER,
    "tests/test_orders.py": STARTS_WORKER,
}


def test_code_whose_image_only_the_tree_s_tests_start_is_a_stand_in_and_info(
    tmp_path: Path,
) -> None:
    """The worker's image is built and named (skaffold), no container of the run runs it,
    and a test starts it with Testcontainers: the tree says what the image is for, so its
    server's findings are info, saying so, though a container is left unlinked."""
    found = server_findings(tmp_path, STAND_IN)
    assert all(f.severity is Severity.INFO for f in found)
    assert all("info only: its image registry.example/worker (" in f.text for f in found)
    assert all("skaffold.yaml:5) is run by no container here" in f.text for f in found)
    assert all(
        "tests/test_orders.py:5 (Testcontainers): a test's stand-in" in f.text for f in found
    )


def test_an_image_tests_start_that_a_container_also_runs_keeps_its_weight(
    tmp_path: Path,
) -> None:
    """Integration tests start the application's real image too: a container of the run
    running it says it is deployed, whatever the tests do with it."""
    worker = web_deployment().replace("web", "worker")
    files = {**STAND_IN, "k8s/worker.yaml": worker}
    found = lint_files(tmp_path, files, ["KLB201"]).findings
    assert found and all(f.severity is not Severity.INFO for f in found)


def test_a_stand_in_is_not_told_where_a_container_s_image_is_not_literal(tmp_path: Path) -> None:
    unknown = CACHE.replace("image: redis", "image: $(CACHE_IMAGE)")
    found = server_findings(tmp_path, {**STAND_IN, "k8s/cache.yaml": unknown})
    assert all(f.severity is Severity.WARNING for f in found)


def test_an_image_no_test_starts_keeps_its_weight(tmp_path: Path) -> None:
    files = {**STAND_IN, "tests/test_orders.py": STARTS_WORKER.replace("worker:dev", "other")}
    assert all(f.severity is Severity.WARNING for f in server_findings(tmp_path, files))


# The same in Java: a mock's module that Jib builds into an image, which an integration
# test of another module starts with Testcontainers.
MOCK_POM = """\
<project>
  <artifactId>ledger-mock</artifactId>
  <build>
    <plugins>
      <plugin>
        <groupId>com.google.cloud.tools</groupId>
        <artifactId>jib-maven-plugin</artifactId>
        <configuration>
          <to>
            <image>acme/ledger-mock</image>
          </to>
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
"""
MOCK_SERVER = """\
package com.acme.ledger.mock;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;

public class MockLedger {
  public static void main(String[] args) throws Exception {
    Server server = NettyServerBuilder.forAddress(new InetSocketAddress(9090)).build();
    server.start();
    server.awaitTermination();
  }
}
"""
LEDGER_IT = """\
package com.acme.orders.it;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

public class OrdersIT {
  static final GenericContainer<?> LEDGER =
      new GenericContainer<>(DockerImageName.parse("acme/ledger-mock").withTag("latest"));
}
"""


def test_a_java_mock_server_only_an_integration_test_starts_is_info(tmp_path: Path) -> None:
    files = {
        **LINKED,
        "k8s/cache.yaml": CACHE,
        "tools/ledger-mock/pom.xml": MOCK_POM,
        "tools/ledger-mock/src/main/java/com/acme/ledger/mock/MockLedger.java": MOCK_SERVER,
        "orders-it/src/test/java/com/acme/orders/it/OrdersIT.java": LEDGER_IT,
    }
    (finding,) = lint_files(tmp_path, files, ["KLB201"]).findings
    assert finding.severity is Severity.INFO
    assert "info only: its image acme/ledger-mock (" in finding.text
    assert "tools/ledger-mock/pom.xml:10) is run by no container here" in finding.text
    assert "OrdersIT.java:8 (Testcontainers): a test's stand-in" in finding.text
    files.pop("orders-it/src/test/java/com/acme/orders/it/OrdersIT.java")
    (finding,) = lint_files(tmp_path / "alone", files, ["KLB201"]).findings
    assert finding.severity is Severity.WARNING


# -- a Node module that no container's program loads -----------------------------------------

ORDERS_SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: orders
spec:
  selector:
    app: orders
  ports:
    - name: http
      port: 80
      targetPort: 3003
"""
PAYMENTS = (
    web_deployment()
    .replace("web", "payments")
    .replace(
        "        - name: payments\n",
        "        - name: payments\n          env:\n"
        "            - {name: ORDERS_URL, value: 'http://orders:3003'}\n",
        1,
    )
)
SERVER_JS = """\
const express = require('express');
const axios = require('axios');
const { charge } = require('./lib/charge');

const app = express();
app.post('/pay', async (req, res) => {
  await charge(req.body);
  res.sendStatus(204);
});
app.listen(8080);
"""
CHARGE_JS = "exports.charge = async (body) => body;\n"
# a router of the package that no module requires: its request is never sent
OLD_ROUTES_JS = """\
const axios = require('axios');

exports.confirm = (id) => axios.post(`${process.env.ORDERS_URL}/orders/${id}/paid`);
"""
PAYMENT_PACKAGE = {
    "k8s/payments.yaml": PAYMENTS,
    "k8s/orders.yaml": ORDERS_SERVICE,
    "payments/package.json": '{"name": "payments", "main": "server.js"}\n',
    "payments/Dockerfile": 'FROM node:20-alpine\nCOPY . /app\nCMD ["node", "/app/server.js"]\n',
    "skaffold.yaml": SKAFFOLD.replace("web", "payments").replace("service", "payments"),
    "payments/server.js": SERVER_JS,
    "payments/lib/charge.js": CHARGE_JS,
    "payments/routes/old.js": OLD_ROUTES_JS,
}


def port_findings(tmp_path: Path, files: dict[str, str]) -> list[Finding]:
    return lint_files(tmp_path, files, ["KLB111"]).findings


def test_a_node_module_the_program_s_entry_never_loads_is_info_saying_so(
    tmp_path: Path,
) -> None:
    """The container runs `node server.js`; server.js loads lib/charge.js, and nothing
    it loads loads routes/old.js: the request there is never sent, so its wrong port is
    info, not the error every call of a running client would be."""
    (finding,) = port_findings(tmp_path, PAYMENT_PACKAGE)
    assert finding.path.endswith("routes/old.js")
    assert finding.severity is Severity.INFO
    assert "info only: container 'payments' of Deployment/payments starts " in finding.text
    assert "server.js, which loads this module neither itself nor through" in finding.text


def test_a_node_module_the_entry_loads_through_another_keeps_its_weight(tmp_path: Path) -> None:
    files = {**PAYMENT_PACKAGE, "payments/lib/charge.js": "require('../routes/old');\n"}
    (finding,) = port_findings(tmp_path, files)
    assert finding.severity is Severity.ERROR


def test_a_module_loaded_by_a_computed_path_may_be_any_and_keeps_its_weight(
    tmp_path: Path,
) -> None:
    """`require(path.join(__dirname, 'routes', name))`: which modules it loads is not
    known, so none is said to be left out."""
    loader = (
        "const fs = require('fs');\nconst path = require('path');\n"
        "for (const name of fs.readdirSync(path.join(__dirname, '../routes'))) {\n"
        "  require(path.join(__dirname, '../routes', name));\n}\n"
    )
    files = {**PAYMENT_PACKAGE, "payments/lib/charge.js": loader + CHARGE_JS}
    (finding,) = port_findings(tmp_path, files)
    assert finding.severity is Severity.ERROR
