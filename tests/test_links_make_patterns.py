"""A Makefile's pattern rule that builds an image for each target it matches (`.%.stamp:`
with `docker build -t acme/$(<D) $(<D)/`): make runs its recipe once per target, its
automatic variables (`$@`, `$<`, `$*`, their folder and file name) that target's, and each
build links the folder it names."""

from __future__ import annotations

import os
from pathlib import Path

from k8slb.reading.build_files import script_builds

from tests.test_links import DOCKERFILE, links, service_app, workload

# each demo image rebuilt when a file of its folder changes (a stamp file per image)
DEMO_MAKEFILE = """\
REGISTRY := acme
STAMPS := .cart.stamp .orders.stamp

all: $(STAMPS)

.cart.stamp: cart/*
.orders.stamp: orders/* orders/orders.bin

.%.stamp:
\tdocker build -t $(REGISTRY)/$(<D) $(<D)/
\ttouch $@

# the images kept apart: one Dockerfile each in images/, named for the image
%.tar: images/Dockerfile.%
\tdocker build -t $(REGISTRY)/$* -f $< .
\tdocker save $(REGISTRY)/$* > $@

release: billing.tar

billing.tar: images/Dockerfile.billing

clean:
\trm -f .*.stamp
"""


def demo(**extra: str) -> dict[str, str]:
    return {
        "demo/Makefile": DEMO_MAKEFILE,
        "demo/cart/Dockerfile": DOCKERFILE,
        "demo/orders/Dockerfile": DOCKERFILE,
        **service_app("demo/cart"),
        **service_app("demo/orders"),
        **extra,
    }


def test_a_pattern_rule_s_build_is_one_per_target_it_matches() -> None:
    builds = script_builds("demo/Makefile", DEMO_MAKEFILE)
    assert [(b.image, b.context, b.dockerfile) for b in builds] == [
        ("acme/cart", os.path.join("demo", "cart"), None),
        ("acme/orders", os.path.join("demo", "orders"), None),
        ("acme/billing", "demo", os.path.join("demo", "images", "Dockerfile.billing")),
    ]
    assert builds[0].said.text == "docker build -t $(REGISTRY)/$(<D) $(<D)/ (for .cart.stamp)"


def test_the_folder_of_a_target_s_first_prerequisite_is_its_image_s(tmp_path: Path) -> None:
    files = {**demo(), "k8s/orders.yaml": workload(name="orders", image="acme/orders:2")}
    row = links(tmp_path, files)[0]
    assert row["code"] == os.path.join("demo", "orders", "server.py")
    assert row["evidence"][0] == (
        "makefile: demo/Makefile:10: docker build -t $(REGISTRY)/$(<D) $(<D)/ (for .orders.stamp)"
    )


def test_a_target_with_a_recipe_of_its_own_is_not_the_pattern_s() -> None:
    text = DEMO_MAKEFILE.replace(
        ".cart.stamp: cart/*\n", ".cart.stamp: cart/*\n\tdocker build -t acme/cart-legacy cart\n"
    )
    images = [b.image for b in script_builds("demo/Makefile", text)]
    assert images == ["acme/cart-legacy", "acme/orders", "acme/billing"]


def test_a_target_two_patterns_match_or_a_prerequisite_not_known_builds_nothing() -> None:
    """Which of two patterns make picks, or a first prerequisite two rules give, is not
    read: no build, rather than a wrong one."""
    two = DEMO_MAKEFILE + "\n.%:\n\tdocker build -t acme/$* $*\n"
    assert "acme/cart" not in [b.image for b in script_builds("demo/Makefile", two)]
    given_twice = DEMO_MAKEFILE.replace(
        ".orders.stamp: orders/*", ".orders.stamp: orders/*\n.orders.stamp: tools/*"
    )
    assert "acme/orders" not in [b.image for b in script_builds("demo/Makefile", given_twice)]


def test_a_special_target_and_a_static_pattern_rule_give_no_instance() -> None:
    text = (
        ".PHONY: images\n"
        "stamps := a.stamp\n"
        "a.stamp b.stamp: %.stamp: %/Dockerfile\n"
        "\tdocker build -t acme/$(<D) $(<D)\n"
    )
    assert script_builds("Makefile", text) == []
