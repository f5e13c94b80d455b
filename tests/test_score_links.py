"""The link score of a held-out set (tests/real_corpus/score_links.py): how a container's
link is judged against the folder its build files say, and how a row of a links.tsv names
the row of explain-links it is about."""

from __future__ import annotations

import pytest

from tests.real_corpus.score_links import NO_CODE, container_key, verdict


@pytest.mark.parametrize(
    ("expected", "linked", "judged"),
    [
        ("src/api", "src/api", "RIGHT"),
        ("src/api", "src/api/server.js", "RIGHT"),  # its entry point
        ("src/user", "src/user/schema/init.js", "RIGHT"),
        (".", ".", "RIGHT"),  # the program at the top of the tree
        ("services/app/server", "services/app", "WRONG"),  # too wide: holds another service
        ("src/api", "src/apigateway", "WRONG"),  # a name that begins alike is another folder
        ("app/cart/service", "app/order/service", "WRONG"),
        ("web/shop", None, "NONE"),
        ("client (with gen/go)", "client", "RIGHT"),  # a reviewer's note after the folder
        ("client (with gen/go)", ".", "WRONG"),
        (". (server.js)", "server.js", "RIGHT"),
    ],
)
def test_a_link_is_right_inside_the_expected_folder_and_wrong_anywhere_else(
    expected: str, linked: str | None, judged: str
) -> None:
    assert verdict(expected, linked) == judged


def test_a_link_to_a_path_the_repository_does_not_hold_reads_no_code() -> None:
    """A build's output folder (a plug-in's generated context) under the right module is
    no code read: scored as no link, not as the module."""
    assert verdict("person", "person/target/docker/person/build", present=False) == "NONE"
    assert verdict("person", "person/target/docker/person/build") == "RIGHT"


def test_a_container_that_runs_no_code_of_the_repository_is_right_unlinked() -> None:
    """A public image built with a Dockerfile that copies nothing (`FROM redis`): no link is
    right, and the row is not one of those whose code is in the repository; any link is
    WRONG."""
    assert verdict("none (FROM redis:7, copies nothing)", None) == NO_CODE
    assert verdict("-", None) == NO_CODE
    assert verdict("none", ".") == "WRONG"


def test_a_row_names_its_container_as_explain_links_keys_it() -> None:
    assert container_key("Deployment//cart", "cart") == "Deployment/cart:cart"
    assert container_key("Deployment/shop/cart", "web") == "Deployment/shop/cart:web"
    assert container_key("Job/user-initdb", "init") == "Job/user-initdb:init"
