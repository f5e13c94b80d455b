"""The images a test starts as containers of its own (code/test_containers.py): what tells
an image the tree builds for a test's stand-in (rulekit's Context.unrun)."""

from __future__ import annotations

import pytest
from k8slb.code.test_containers import MAX_STARTED, MAX_STARTS, started_images

JAVA = b"""\
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

class LedgerIT {
  GenericContainer<?> mock =
      new GenericContainer<>(DockerImageName.parse("acme/mock").withTag("1"));
  GenericContainer<?> cache = new GenericContainer<>("redis:7");
  GenericContainer<?> other = new GenericContainer<>(System.getProperty("app.image"));
}
"""
KOTLIN = b"""\
import org.testcontainers.containers.GenericContainer

val c = GenericContainer<Nothing>("acme/mock:2")
"""
NODE = b"""\
import { GenericContainer } from "testcontainers";

const c = await new GenericContainer(`acme/mock`).start();
"""
PYTHON = b"""\
from testcontainers.core.container import DockerContainer

with DockerContainer("acme/mock:3") as c:
    pass
"""
GO = b"""\
import "github.com/testcontainers/testcontainers-go"

func TestLedger(t *testing.T) {
\treq := testcontainers.ContainerRequest{
\t\tImage: "acme/mock:4",
\t}
\tc, _ := testcontainers.Run(ctx, "redis:7")
}
"""


@pytest.mark.parametrize(
    ("text", "started"),
    [
        (JAVA, (("acme/mock", 6), ("redis:7", 7))),
        (KOTLIN, (("acme/mock:2", 3),)),
        (NODE, (("acme/mock", 3),)),
        (PYTHON, (("acme/mock:3", 3),)),
        (GO, (("acme/mock:4", 5), ("redis:7", 7))),
    ],
    ids=["java", "kotlin", "node", "python", "go"],
)
def test_the_images_each_language_starts_with_testcontainers(
    text: bytes, started: tuple[tuple[str, int], ...]
) -> None:
    assert started_images(text) == started


def test_a_file_that_does_not_name_testcontainers_starts_nothing() -> None:
    assert started_images(b'Image: "acme/mock"\nDockerContainer("acme/mock")\n') == ()


def test_an_image_a_variable_gives_is_not_read() -> None:
    text = b'// testcontainers\nnew GenericContainer<>("${IMAGE}")\nDockerContainer(image)\n'
    assert started_images(text) == ()


def test_a_file_of_many_starts_gives_a_few() -> None:
    text = b"testcontainers\n" + b"".join(
        b'DockerContainer("acme/mock-%d")\n' % i for i in range(10 * MAX_STARTED)
    )
    found = started_images(text)
    assert len(found) == MAX_STARTED
    assert found[-1] == (f"acme/mock-{MAX_STARTED - 1}", MAX_STARTED + 1)


def test_past_the_starts_read_a_file_gives_no_more() -> None:
    text = b"testcontainers\n" + b'DockerContainer("acme/one")\n' * MAX_STARTS
    assert started_images(text + b'DockerContainer("acme/two")\n') == (("acme/one", 2),)
