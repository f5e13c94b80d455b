"""ImageSet (model/links.py): whether an image is among many, as `same_image` says of two,
asked by its own name's ends rather than against each image in turn."""

from __future__ import annotations

import itertools

import pytest
from k8slb.model.links import ImageSet, same_image

IMAGES = [
    "acme/auth",
    "acme/auth:1.2",
    "registry.example.com/acme/auth:2",
    "localhost:5000/acme/auth",
    "localhost/auth",
    "auth",
    "docker.io/library/redis:7",
    "redis",
    "ghcr.io/acme/web@sha256:abc",
    "acme/web",
    "other/auth",
    "registry.example.com/team/acme/auth",
    "",
]


@pytest.mark.parametrize(("asked", "held"), list(itertools.product(IMAGES, IMAGES)))
def test_an_image_set_finds_what_same_image_matches(asked: str, held: str) -> None:
    found = ImageSet([held]).find(asked)
    assert (found is not None) == same_image(asked, held)


def test_an_image_set_of_many_finds_one_that_matches() -> None:
    images = [f"registry.example.com/team{i}/app{i}:{i}" for i in range(5000)]
    assert ImageSet(images).find("team4321/app4321") == images[4321]
    assert ImageSet(images).find("team4321/app4322") is None
