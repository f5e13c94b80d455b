"""A Service whose pods run different programs (images of different repositories) carries
only a port they all serve alike (admin, metrics): a request through it may land on any
of them. Findings that rest only on such a Service are info, and a message names a
client Service over it (model/unlike_pods.py; KLB302, KLB401, KLB301, KLB406)."""

from __future__ import annotations

from pathlib import Path

import pytest
from k8slb.core.findings import Finding, Severity
from k8slb.model.unlike_pods import _program

from .helpers import lint_files, lint_text

RULES = ["KLB302", "KLB401"]


def app(name: str, image: str, extra: str = "", containers: str = "") -> str:
    """A Deployment `name` (two replicas, no probes, no preStop) of the `shop` tier, whose
    container `name` runs `image` and declares `http` 8080 and `admin` 9000; `extra` are
    lines of that container, `containers` more containers of the pod."""
    return f"""\
---
apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}, namespace: shop}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {name}}}}}
  template:
    metadata:
      labels: {{app: {name}, tier: shop}}
    spec:
      containers:
        - name: {name}
          image: {image}
          ports:
            - {{name: http, containerPort: 8080}}
            - {{name: admin, containerPort: 9000}}
{extra}{containers}"""


# one Service over the whole tier, on the port every app serves for operations
OPS = """\
---
apiVersion: v1
kind: Service
metadata: {name: ops, namespace: shop}
spec:
  type: LoadBalancer
  selector: {tier: shop}
  ports:
    - {name: ops, port: 9000, targetPort: admin}
"""


def client_service(name: str) -> str:
    return f"""\
---
apiVersion: v1
kind: Service
metadata: {{name: {name}, namespace: shop}}
spec:
  selector: {{app: {name}}}
  ports:
    - {{name: web, port: 80, targetPort: http}}
"""


def by_object(findings: list[Finding]) -> dict[tuple[str, str], Finding]:
    return {(f.rule, f.object.name if f.object else ""): f for f in findings}


def test_a_service_over_two_programs_makes_only_infos(tmp_path: Path) -> None:
    text = OPS + app("cart", "registry.example/shop/cart:1.4") + app("user", "shop/user:2.0")
    found = lint_text(tmp_path, text, RULES)
    assert len(found) == 4
    for finding in found:
        assert finding.severity == Severity.INFO
        assert "Service ops spans 2 different programs (cart, user, ...)" in (finding.text)
        assert "only a port they share, such as admin or metrics" in finding.text


def test_a_client_service_keeps_the_warning_and_is_the_one_named(tmp_path: Path) -> None:
    """The unlike Service comes first in the files, the client Service is still named."""
    text = (
        OPS + app("cart", "shop/cart:1.4") + app("user", "shop/user:2.0") + client_service("cart")
    )
    found = by_object(lint_text(tmp_path, text, RULES))
    for rule in RULES:
        cart, user = found[(rule, "cart")], found[(rule, "user")]
        assert cart.severity == Severity.WARNING
        assert "it serves Service cart" in cart.text
        assert "Service ops" not in cart.text
        assert user.severity == Severity.INFO  # only ops selects it


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a canary: the same repository at another tag
        ("shop/cart:1.4", "shop/cart:1.5-rc1"),
        # a mirror of it on another registry, the bare name a build tool replaces
        ("registry.example:5000/shop/cart:1.4", "shop/cart:1.4"),
        ("registry.example/ci/images/cart:1.4", "cart"),
        # a tag naming a release channel, which its workload's name repeats
        ("shop/cart:stable", "shop/cart:canary"),
        # an image that is not literal: the programs may be one
        ("shop/cart:1.4", "shop/${APP}:1.4"),
    ],
)
def test_pods_of_one_program_or_unknown_ones_keep_the_warning(
    tmp_path: Path, first: str, second: str
) -> None:
    text = OPS + app("cart", first) + app("cart-canary", second)
    found = lint_text(tmp_path, text, RULES)
    assert len(found) == 4
    assert {f.severity for f in found} == {Severity.WARNING}


def test_one_repository_whose_tags_name_the_programs(tmp_path: Path) -> None:
    """A demo's repository holds each app at a tag of its own, named like its workload."""
    text = (
        OPS
        + app("shop-cart-v1", "acme/demo:demo-cart_v1_0.2")
        + app("shop-user", "acme/demo:demo-user_0.2")
    )
    found = lint_text(tmp_path, text, RULES)
    assert {f.severity for f in found} == {Severity.INFO}
    assert "(demo (cart), demo (user), ...)" in found[0].text


def test_a_port_served_by_one_sidecar_program_everywhere_is_alike(tmp_path: Path) -> None:
    """The port is served by the same proxy in every pod, not by the apps' containers."""
    proxy = (
        "        - name: proxy\n"
        "          image: envoyproxy/envoy:v1.30\n"
        "          ports: [{name: edge, containerPort: 10000}]\n"
    )
    service = OPS.replace("targetPort: admin", "targetPort: edge")
    text = (
        service
        + app("cart", "shop/cart:1", containers=proxy)
        + app("user", "shop/user:1", containers=proxy)
    )
    found = [f for f in lint_text(tmp_path, text, RULES) if f.container == "proxy"]
    assert len(found) == 4
    assert {f.severity for f in found} == {Severity.WARNING}


def test_copies_of_one_workload_in_variant_folders_are_one_app(tmp_path: Path) -> None:
    """A plain tree's dev and release folders each hold the Deployment `cart`, built from
    other images, and a common folder its Service: no cluster runs both copies, so the
    Service over them spans one app."""
    service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: cart, namespace: shop}\n"
    service += (
        "spec:\n  selector: {app: cart}\n  ports: [{name: web, port: 80, targetPort: http}]\n"
    )
    files = {
        "common/cart.yaml": service,
        "dev/cart.yaml": app("cart", "cart-dev-build"),
        "release/cart.yaml": app("cart", "registry.example/shop/cart-release:1.0"),
    }
    found = lint_files(tmp_path, files, RULES).findings
    assert found
    assert {f.severity for f in found} == {Severity.WARNING}


def test_an_unnamed_port_is_the_main_containers(tmp_path: Path) -> None:
    """A number no container declares reaches the pod's own container, whose images
    differ."""
    service = OPS.replace("targetPort: admin", "targetPort: 22222")
    text = service + app("cart", "shop/cart:1") + app("user", "shop/user:1")
    found = lint_text(tmp_path, text, RULES)
    assert len(found) == 4
    assert {f.severity for f in found} == {Severity.INFO}


def test_a_shared_probe_of_a_pod_only_an_unlike_service_selects_is_info(tmp_path: Path) -> None:
    """KLB301: readiness gates no client's traffic there."""
    dials = "          readinessProbe:\n            exec: {command: [pg_isready, -h, db]}\n"
    both = dials + dials.replace("readiness", "liveness")
    alone = lint_text(
        tmp_path, app("cart", "shop/cart:1", both) + client_service("cart"), ["KLB301"]
    )
    assert [f.severity for f in alone] == [Severity.WARNING]
    text = OPS + app("cart", "shop/cart:1", both) + app("user", "shop/user:1")
    found = lint_text(tmp_path, text, ["KLB301"])
    assert [f.severity for f in found] == [Severity.INFO]
    assert "Service ops spans 2 different programs" in found[0].text


def test_sigterm_lost_in_a_pod_only_an_unlike_service_selects_is_info(tmp_path: Path) -> None:
    """KLB406: no client's request is cut there."""
    npm = "          command: [npm, start]\n"
    alone = lint_text(
        tmp_path, app("cart", "shop/cart:1", npm) + client_service("cart"), ["KLB406"]
    )
    assert [f.severity for f in alone] == [Severity.WARNING]
    text = OPS + app("cart", "shop/cart:1", npm) + app("user", "shop/user:1")
    found = lint_text(tmp_path, text, ["KLB406"])
    assert [f.severity for f in found] == [Severity.INFO]
    assert "Service ops spans 2 different programs" in found[0].text


@pytest.mark.parametrize(
    ("image", "names", "program"),
    [
        ("docker.io/library/nginx:1.25", ("web",), "nginx"),
        ("localhost:5000/shop/cart@sha256:abc", ("cart",), "cart"),
        ("acme/demo:demo-order_v2_0.0.2", ("shop-order-v2", "shop-order"), "demo (order)"),
        ("acme/demo:demo-order_gray_0.0.2", ("shop-order-gray",), "demo (order)"),
        ("acme/web:java17", ("web",), "web"),
        ("{{ .Values.image }}", ("web",), None),
        (None, ("web",), None),
    ],
)
def test_the_program_of_an_image(image: object, names: tuple[str, ...], program: str) -> None:
    assert _program(image, names) == program
